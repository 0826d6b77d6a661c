import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import pg from 'pg'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect.ts'
import type { App } from '../../src/http/app-type.ts'
import { serverUrl } from '../helpers/databases.ts'
import { scratchDataDir } from '../helpers/scratch.ts'
import { freshDatabase, HIGH_LIMITS, onServer, relay, terminateBackends, until } from './support.ts'

const skip = serverUrl() ? false : 'PostgreSQL only: backends to terminate and statements to time out need a server'

function assertUnavailable(response: LightMyRequestResponse, what: string) {
  assert.equal(response.statusCode, 503, `${what}: ${response.statusCode} ${response.body}`)
  assert.equal(response.headers['retry-after'], '5', what)
  assert.deepEqual(response.json(), { detail: 'The service is temporarily unavailable; try again shortly.' }, what)
}

/** Lets a test hold a request inside its transaction, between two statements, while it breaks the connection. */
function gate() {
  let started!: (pid: number) => void
  let open!: () => void
  const pid = new Promise<number>((resolve) => (started = resolve))
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { pid, started, opened, open }
}
let held = gate()

/** Routes that show the connection a request runs on, and hold one inside a transaction. */
function probeRoutes(app: App) {
  app.get('/test/backend/', {
    config: { access: 'anyone' },
    handler: async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(app.db)).rows[0],
  })
  app.get('/test/sleep/', {
    config: { access: 'anyone' },
    handler: async () => (await sql`select pg_sleep(30) as slept`.execute(app.db), {}),
  })
  app.post('/test/held/', {
    config: { access: 'anyone' },
    handler: async (request) => {
      const end = (request.query as { end?: string }).end
      await app.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)
        await sql`update tags set slug = slug where id = (select min(id) from tags)`.execute(trx)
        held.started(rows[0].pid)
        await held.opened
        if (end === 'statement') await sql`select 1`.execute(trx)
      })
      return {}
    },
  })
}

interface Service {
  app: FastifyInstance
  database: DatabaseHandle
  /** Connections that broke while the service held them, as the pool told. */
  lost: Error[]
  pid(): Promise<number>
}

async function service(url: string, options: { poolSize?: number; statementTimeoutMs?: number } = {}): Promise<Service> {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: scratchDataDir(), DATABASE_URL: url, ...HIGH_LIMITS })
  const lost: Error[] = []
  const database = await connectDatabase({
    databaseUrl: url,
    dataDir: config.dataDir,
    poolSize: options.poolSize ?? 4,
    connectTimeoutMs: 2_000,
    statementTimeoutMs: options.statementTimeoutMs,
    onConnectionError: (error) => lost.push(error),
  })
  const app = await buildApp({ config, db: database.db, extraRoutes: probeRoutes })
  await app.ready()
  const pid = async () => {
    const response = await app.inject({ method: 'GET', url: '/test/backend/' })
    assert.equal(response.statusCode, 200, response.body)
    return response.json().pid as number
  }
  return { app, database, lost, pid }
}

describe('a PostgreSQL server that terminates, stalls or times out the service’s connections', { skip }, () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>
  const closers: Array<() => Promise<void>> = []
  before(async () => {
    fresh = await freshDatabase()
  })
  after(async () => {
    for (const close of closers.reverse()) await close()
    await fresh.drop()
  })
  async function open(options?: Parameters<typeof service>[1], url = fresh.url) {
    const s = await service(url, options)
    closers.push(async () => {
      await s.app.close()
      await s.database.close()
    })
    return s
  }

  test('a backend terminated between two statements of a transaction: 503, the process lives on, the next request gets a new connection', async () => {
    const s = await open({ poolSize: 2 })
    for (const end of ['statement', 'commit']) {
      held = gate()
      const pending = s.app.inject({
        method: 'POST',
        url: `/test/held/?end=${end}`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      })
      const pid = await Promise.race([held.pid, pending.then((response) => assert.fail(`answered before the gate: ${response.body}`))])
      const lostBefore = s.lost.length
      assert.equal(await terminateBackends(fresh.name, pid), 1)
      // The client hears of it while the request holds it: without a listener this 'error' ends the process.
      await until(() => s.lost.length > lostBefore, 'the pool tells of the lost connection')
      held.open()
      assertUnavailable(await pending, `the ${end} after the termination`)
      assert.notEqual(await s.pid(), pid, 'the broken connection is not lent again')
    }
  })

  test('a backend terminated in the middle of a statement: 503, then 200', async () => {
    const s = await open()
    const pending = s.app.inject({ method: 'GET', url: '/test/sleep/' })
    let pid = 0
    await until(async () => {
      const { rows } = await onServer((client) =>
        client.query(`select pid from pg_stat_activity where datname = $1 and query like 'select pg_sleep%' and state = 'active'`, [
          fresh.name,
        ]),
      )
      pid = rows[0]?.pid ?? 0
      return pid > 0
    }, 'the statement runs')
    await terminateBackends(fresh.name, pid)
    assertUnavailable(await pending, 'the terminated statement')
    assert.equal((await s.app.inject({ method: 'GET', url: '/api/tags/' })).statusCode, 200)
  })

  test('idle connections terminated: the pool replaces them, requests answer 200', async () => {
    const s = await open({ poolSize: 3 })
    await Promise.all([s.pid(), s.pid(), s.pid()])
    const lostBefore = s.lost.length
    assert.ok((await terminateBackends(fresh.name)) >= 1)
    await until(() => s.lost.length > lostBefore, 'the pool tells of the lost connections')
    for (let i = 0; i < 5; i++) assert.equal((await s.app.inject({ method: 'GET', url: '/api/questions/' })).statusCode, 200)
  })

  test('a statement past the statement timeout answers 503, and its connection serves the next request', async () => {
    const s = await open({ poolSize: 1, statementTimeoutMs: 300 })
    const pid = await s.pid()
    // Another session holds the table the listing reads: the database is too slow to answer in time.
    const locker = new pg.Client({ connectionString: fresh.url })
    await locker.connect()
    try {
      await locker.query('begin')
      await locker.query('lock table tags in access exclusive mode')
      assertUnavailable(await s.app.inject({ method: 'GET', url: '/api/tags/' }), 'a listing behind a lock')
      assertUnavailable(await s.app.inject({ method: 'GET', url: '/test/sleep/' }), 'a long statement')
      await locker.query('rollback')
    } finally {
      await locker.end()
    }
    assert.equal(await s.pid(), pid, 'a statement timeout leaves the connection usable')
    assert.equal((await s.app.inject({ method: 'GET', url: '/api/tags/' })).statusCode, 200)
  })

  test('a connection that stops answering: 503 after the read timeout, and it is not lent again', async () => {
    const path = await relay(new URL(serverUrl()!))
    closers.push(() => path.close())
    const url = new URL(fresh.url)
    url.host = `127.0.0.1:${path.port}`
    const s = await open({ poolSize: 1, statementTimeoutMs: 200 }, url.toString())
    const pid = await s.pid()
    path.freeze()
    assertUnavailable(await s.app.inject({ method: 'GET', url: '/test/backend/' }), 'a statement whose answer never comes')
    assert.notEqual(await s.pid(), pid, 'the next request runs on a new connection')
    assert.equal((await s.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
  })

  test('a database that refuses connections: 503 and /readyz 503 meanwhile, 200 once it accepts them again', async () => {
    const s = await open()
    assert.equal((await s.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
    await onServer((client) => client.query(`alter database ${fresh.name} allow_connections false`))
    try {
      await terminateBackends(fresh.name)
      assertUnavailable(await s.app.inject({ method: 'GET', url: '/api/questions/' }), 'a listing')
      const ready = await s.app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(ready.statusCode, 503)
      assert.deepEqual(ready.json(), { detail: 'The database is not reachable.' })
      assert.equal((await s.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
    } finally {
      await onServer((client) => client.query(`alter database ${fresh.name} allow_connections true`))
    }
    assert.equal((await s.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
    assert.equal((await s.app.inject({ method: 'GET', url: '/api/questions/' })).statusCode, 200)
  })
})
