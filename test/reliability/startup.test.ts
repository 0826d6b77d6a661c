import { test } from 'node:test'
import assert from 'node:assert/strict'
import { migrations } from '../../src/db/migrations/index.ts'
import { databaseUrlFor, serverUrl } from '../helpers/databases.ts'
import { cli, freePort, onServer, relay, serve, until } from './support.ts'

const ATTEMPT =
  /^database not reachable at postgres:\/\/civic:\*\*\*@127\.0\.0\.1:(\d+)\/civic \(attempt (\d+): (.+)\); retrying in (\d+\.\d) s$/

test('serve with the database down retries with a line per attempt, then exits 1 with one line naming the database, password hidden', async () => {
  const port = await freePort()
  const server = serve({
    DATABASE_URL: `postgres://civic:secret@127.0.0.1:${port}/civic`,
    DB_STARTUP_TIMEOUT_S: '2',
    PORT: String(await freePort()),
  })
  const code = await server.exited
  assert.equal(code, 1, server.output())
  const lines = server.output().trim().split('\n')
  const attempts = lines.slice(0, -1)
  assert.ok(attempts.length >= 2, `several attempts:\n${server.output()}`)
  attempts.forEach((line, index) => {
    const match = ATTEMPT.exec(line)
    assert.ok(match, `an attempt line: ${line}`)
    assert.equal(Number(match[1]), port)
    assert.equal(Number(match[2]), index + 1)
    assert.match(match[3], /ECONNREFUSED/)
  })
  // Each wait at least as long as the one before, until the time is up.
  const waits = attempts.map((line) => Number(ATTEMPT.exec(line)![4]))
  assert.ok(
    waits.slice(1, -1).every((wait, index) => wait >= waits[index]),
    `backoff: ${waits}`,
  )
  assert.match(
    lines.at(-1)!,
    new RegExp(
      `^database unreachable at postgres://civic:\\*\\*\\*@127\\.0\\.0\\.1:${port}/civic after ${attempts.length + 1} attempts in 2 s: .*ECONNREFUSED`,
    ),
  )
  assert.ok(!server.output().includes('secret'), 'the password appears nowhere')
})

test('a bad timeout setting stops serve with one line naming the variable', () => {
  for (const [variable, value] of [
    ['DB_CONNECT_TIMEOUT_MS', 'soon'],
    ['DB_STATEMENT_TIMEOUT_MS', '-1'],
    ['DB_STARTUP_TIMEOUT_S', '1e3'],
  ]) {
    const result = cli(['serve'], { [variable]: value })
    assert.equal(result.code, 2)
    assert.equal(result.stderr.trim(), `configuration error: ${variable}: expected a whole number, got "${value}"`)
  }
})

test(
  'serve started before its database is reachable waits for it, migrates and serves',
  { skip: serverUrl() ? false : 'PostgreSQL only: needs a server to come up' },
  async () => {
    const name = `civic_startup_${process.pid}`
    await onServer((client) =>
      client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => client.query(`CREATE DATABASE ${name}`)),
    )
    // The server is reached through a relay that only starts listening once the service has tried and failed.
    const target = new URL(serverUrl()!)
    const relayPort = await freePort()
    const url = new URL(databaseUrlFor(serverUrl()!, name))
    url.host = `127.0.0.1:${relayPort}`
    const port = await freePort()
    const server = serve({ DATABASE_URL: url.toString(), DB_STARTUP_TIMEOUT_S: '60', PORT: String(port) })
    let path: Awaited<ReturnType<typeof relay>> | undefined
    try {
      await until(() => /attempt 2: /.test(server.output()), `two failed attempts:\n${server.output()}`)
      path = await relay(target, relayPort)
      await until(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200,
        `ready:\n${server.output()}`,
      )
      const ready = await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()
      assert.deepEqual(ready, { status: 'ok', migration: Object.keys(migrations).sort().at(-1) })
      assert.equal(server.child.exitCode, null)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
      await path?.close()
      await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    }
  },
)
