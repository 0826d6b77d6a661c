import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { dataDirFromTemplate, serverUrl } from '../helpers/databases.ts'
import { cli, freePort, serve, serveUntilReady } from './support.ts'

/**
 * One process per embedded data directory, seen from the command line: a second process is refused in one line
 * while the first runs, and takes the directory over once the first is gone, however it went.
 */
const skip = serverUrl() ? 'the lock guards the embedded database only; it runs in the PGlite suite' : false

let dataDir: string
let env: Record<string, string>
const lockFile = () => path.join(dataDir, 'pglite.lock')
const refusal = (pid: number, where = '') =>
  `civic-survey: the embedded database in ${dataDir} is in use by process ${pid}${where} (civic-survey serve); ` +
  'stop it first, or set DATABASE_URL to share a PostgreSQL server'

let holderRecord: Record<string, unknown>

before(() => {
  if (skip) return
  // A migrated database from the start, so that the first server has no database to make: what is tested is the lock.
  dataDir = dataDirFromTemplate('empty')
  env = { DATA_DIR: dataDir, DATABASE_URL: '' }
})
after(() => {
  if (!skip) fs.rmSync(dataDir, { recursive: true, force: true })
})

const startServe = () => serveUntilReady(env)

test(
  'while serve runs, a CLI command and a second serve are refused in one line; after a SIGKILL the next command takes over',
  { skip },
  async () => {
    const { server, base } = await startServe()
    try {
      const pid = server.child.pid!
      holderRecord = JSON.parse(fs.readFileSync(lockFile(), 'utf8'))
      const create = cli(['app-key', 'create', '--name', 'beside the server'], env)
      assert.equal(create.code, 75, create.stderr)
      assert.equal(create.stdout, '')
      assert.equal(create.stderr, `${refusal(pid)}\n`)

      const second = serve({ ...env, PORT: String(await freePort()) })
      assert.equal(await second.exited, 75, second.output())
      assert.equal(second.output(), `${refusal(pid)}\n`)
      assert.equal((await fetch(`${base}/api/questions/?page_size=1`)).status, 200, 'the refused processes left the server alone')
    } finally {
      server.child.kill('SIGKILL')
      await server.exited
    }

    assert.ok(fs.existsSync(lockFile()), 'a killed holder leaves its lock behind')
    const created = cli(['app-key', 'create', '--name', 'after the kill'], env)
    assert.equal(created.code, 0, created.stderr)
    assert.match(created.stdout, /^[0-9a-f]{64}\n$/)
    assert.equal(fs.existsSync(lockFile()), false, 'the command released the lock it took over')

    // The next server reads what the command wrote: the key it made is accepted, a made-up one is not.
    const next = await startServe()
    try {
      const key = created.stdout.trim()
      const accepted = await fetch(`${next.base}/api/questions/?page_size=1`, { headers: { AppAuthorization: key } })
      assert.equal(accepted.status, 200, await accepted.text())
      const madeUp = await fetch(`${next.base}/api/questions/?page_size=1`, { headers: { AppAuthorization: 'f'.repeat(64) } })
      assert.equal(madeUp.status, 401)
    } finally {
      next.server.child.kill('SIGTERM')
      assert.equal(await next.server.exited, 0, next.server.output())
    }
    assert.equal(fs.existsSync(lockFile()), false, 'a server stopped with SIGTERM leaves the directory free')
  },
)

test('a lock naming a reused pid, or a silent holder on another host, is taken over; a live one on another host is not', { skip }, () => {
  // The holder's pid now belongs to a live process that is not the holder: this test's own.
  fs.writeFileSync(lockFile(), JSON.stringify({ ...holderRecord, pid: process.pid }))
  assert.equal(cli(['app-key', 'list'], env).code, 0, 'a reused pid is not the holder')

  // A holder elsewhere cannot be asked about its pid: its heartbeat (the file's modification time) decides.
  fs.writeFileSync(lockFile(), JSON.stringify({ ...holderRecord, hostname: 'elsewhere', machine: 'another-boot pid:[1]' }))
  const refused = cli(['app-key', 'list'], env)
  assert.equal(refused.code, 75)
  assert.equal(refused.stderr, `${refusal(holderRecord.pid as number, ' on elsewhere')}\n`)
  const longAgo = new Date(Date.now() - 120_000)
  fs.utimesSync(lockFile(), longAgo, longAgo)
  assert.equal(cli(['app-key', 'list'], env).code, 0, 'a holder silent for two minutes is gone')
  assert.equal(fs.existsSync(lockFile()), false)
})
