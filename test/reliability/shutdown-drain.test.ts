import { test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { serverUrl } from '../helpers/databases.ts'
import { openSse } from '../helpers/sse.ts'
import { freshDatabase, serveUntilReady, until } from './support.ts'

/**
 * A process told to stop drains (docs/operations.md, Restarting without dropping a request): /readyz fails at once
 * while it goes on serving with `Connection: close`, then live streams end with a reconnect hint and it exits 0.
 */
test('SIGTERM: /readyz fails at once, requests are still served while draining, streams hear a reconnect hint, exit 0', async () => {
  const database = serverUrl() ? await freshDatabase() : null
  const { server, base } = await serveUntilReady({ SHUTDOWN_DRAIN_MS: '2500', ...(database?.service ?? {}) })
  try {
    assert.equal((await fetch(`${base}/readyz`)).status, 200)
    let stream = null
    if (database) {
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      const { rows } = await client.query('select id from questions where publish order by id limit 1')
      await client.end()
      stream = await openSse(`${base}/api/questions/${rows[0].id}/live/`)
      assert.equal(stream.status, 200)
      await stream.next()
    }
    const exited = server.exited
    server.child.kill('SIGTERM')
    await until(async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 503, 'readyz failing', 1_000)
    const ready = await fetch(`${base}/readyz`)
    assert.equal(ready.status, 503)
    assert.deepEqual(await ready.json(), { detail: 'The server is shutting down.' })
    // Still serving while the balancer notices, asking each client to come back on a new connection.
    const page = await fetch(`${base}/api/questions/?page_size=1`)
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('connection'), 'close')
    assert.equal((await fetch(`${base}/healthz`)).status, 200)
    if (stream) {
      const text = await stream.ended
      assert.match(text, /: the server is restarting; reconnect\nretry: 500\n\n$/)
      assert.equal(stream.retry, 500)
    }
    assert.equal(await exited, 0, server.output())
    assert.equal(await fetch(`${base}/healthz`).catch(() => null), null, 'the port is closed')
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
    await database?.drop()
  }
})
