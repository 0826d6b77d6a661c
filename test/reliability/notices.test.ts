import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { serverUrl } from '../helpers/databases.ts'
import { openSse, type SseStream } from '../helpers/sse.ts'
import { freshDatabase, onServer, serveUntilReady, terminateBackends, until, type ServeProcess } from './support.ts'

/** The backends of the database whose last statement was a LISTEN: the processes' listening connections. */
async function listeningBackends(database: string): Promise<number[]> {
  const { rows } = await onServer((client) =>
    client.query(`select pid from pg_stat_activity where datname = $1 and query like 'LISTEN %'`, [database]),
  )
  return rows.map((row) => row.pid as number)
}

test(
  'a process hears notices on one connection, shared by the response cache, live streams and push, and gets it back once it is terminated',
  { skip: serverUrl() ? false : 'PostgreSQL only: notices of a database server' },
  async () => {
    const database = await freshDatabase()
    let server: ServeProcess | null = null
    let stream: SseStream | null = null
    try {
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      try {
        const author = (
          await client.query(`insert into users (username, email) values ($1, $1 || '@example.net') returning id`, [
            `author-${randomBytes(4).toString('hex')}`,
          ])
        ).rows[0].id as number
        const id = (
          await client.query(`insert into questions (user_id, question, slug, publish) values ($1, 'Heard?', $2, true) returning id`, [
            author,
            `heard-${randomBytes(4).toString('hex')}`,
          ])
        ).rows[0].id as number

        const started = await serveUntilReady({ DATABASE_URL: database.url, LIVE_INTERVAL_MS: '100', RESPONSE_CACHE_MB: '16' })
        server = started.server
        const base = started.base
        await until(async () => (await listeningBackends(database.name)).length === 1, 'one listening connection')
        const [first] = await listeningBackends(database.name)

        const detail = `${base}/api/questions/${id}/`
        const read = async () => {
          const response = await fetch(detail)
          return { cache: response.headers.get('x-cache'), question: ((await response.json()) as { question: string }).question }
        }
        await until(async () => (await read()).cache === 'HIT', 'the detail kept in memory')
        stream = await openSse(`${detail}live/`)
        assert.equal((await stream.next()).data.id, id)

        assert.equal(await terminateBackends(database.name, first), 1)
        await until(async () => {
          const now = await listeningBackends(database.name)
          return now.length === 1 && now[0] !== first
        }, 'a new listening connection, and only one')

        // A script's change beside the service reaches both the kept answers and the live subscribers.
        await client.query(`update questions set question = 'Heard again?' where id = $1`, [id])
        await until(async () => (await read()).question === 'Heard again?', 'the kept detail rebuilt after the change')
        await client.query('update questions set publish = false where id = $1', [id])
        const gone = await stream.until((event) => event.event === 'gone', 'the hidden question on the live stream', 10_000)
        assert.deepEqual(gone.data, { id })
      } finally {
        await client.end()
      }
    } finally {
      stream?.close()
      if (server) {
        server.child.kill('SIGTERM')
        await server.exited
      }
      await database.drop()
    }
  },
)
