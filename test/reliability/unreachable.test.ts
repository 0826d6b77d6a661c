import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect.ts'
import { scratchDataDir } from '../helpers/scratch.ts'

/**
 * A service whose PostgreSQL server cannot be reached. No server is needed: these run in both suites.
 * A port nobody listens on refuses at once; a "black hole" accepts the connection and never answers, so only the
 * connect timeout ends the wait.
 */
const closers: Array<() => Promise<void>> = []
after(async () => {
  for (const close of closers.reverse()) await close()
})

async function listening(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as net.AddressInfo).port
}

async function closedPort(): Promise<number> {
  const server = net.createServer()
  const port = await listening(server)
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function blackHole(): Promise<number> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
  })
  const port = await listening(server)
  closers.push(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return port
}

async function serviceOn(port: number, poolSize = 2): Promise<{ app: FastifyInstance; database: DatabaseHandle }> {
  const databaseUrl = `postgres://civic:secret@127.0.0.1:${port}/civic`
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: scratchDataDir(), DATABASE_URL: databaseUrl, DB_CONNECT_TIMEOUT_MS: '300' })
  const database = await connectDatabase({ databaseUrl, dataDir: config.dataDir, connectTimeoutMs: config.dbConnectTimeoutMs, poolSize })
  const app = await buildApp({ config, db: database.db })
  await app.ready()
  closers.push(async () => {
    await app.close()
    await database.close()
  })
  return { app, database }
}

function assertUnavailable(response: LightMyRequestResponse, what: string) {
  assert.equal(response.statusCode, 503, `${what}: ${response.statusCode} ${response.body}`)
  assert.equal(response.headers['retry-after'], '5', what)
  assert.deepEqual(response.json(), { detail: 'The service is temporarily unavailable; try again shortly.' }, what)
}

test('a refused connection answers 503 with Retry-After on reads, writes and authenticated calls; /readyz 503, /healthz 200', async () => {
  const { app } = await serviceOn(await closedPort())
  assertUnavailable(await app.inject({ method: 'GET', url: '/api/tags/' }), 'a list')
  assertUnavailable(await app.inject({ method: 'GET', url: '/api/questions/1/' }), 'an object')
  assertUnavailable(
    await app.inject({ method: 'GET', url: '/api/tags/', headers: { authorization: 'Token 0123456789abcdef0123456789abcdef01234567' } }),
    'a token check',
  )
  assertUnavailable(await app.inject({ method: 'GET', url: '/api/tags/?AppAuthorization=abc' }), 'an application key check')
  assertUnavailable(
    await app.inject({
      method: 'POST',
      url: '/auth/login/',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": "ada", "password": "secret"}',
    }),
    'a sign-in',
  )
  const ready = await app.inject({ method: 'GET', url: '/readyz' })
  assert.equal(ready.statusCode, 503)
  assert.equal(ready.headers['retry-after'], '5')
  assert.deepEqual(ready.json(), { detail: 'The database is not reachable.' })
  const healthy = await app.inject({ method: 'GET', url: '/healthz' })
  assert.equal(healthy.statusCode, 200)
  assert.deepEqual(healthy.json(), { status: 'ok' })
})

test('a server that accepts and never answers: the connect timeout ends the wait with 503, for waiters of the pool too', async () => {
  // One connection for three requests: the first waits on the socket, the others on the pool, all bounded.
  const { app } = await serviceOn(await blackHole(), 1)
  const answers = await Promise.all([
    app.inject({ method: 'GET', url: '/api/tags/' }),
    app.inject({ method: 'GET', url: '/api/questions/' }),
    app.inject({ method: 'GET', url: '/readyz' }),
  ])
  assertUnavailable(answers[0], 'the first request')
  assertUnavailable(answers[1], 'a request waiting for the pool')
  assert.equal(answers[2].statusCode, 503, answers[2].body)
  assert.deepEqual(answers[2].json(), { detail: 'The database is not reachable.' })
  assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
})
