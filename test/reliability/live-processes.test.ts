import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { serverUrl } from '../helpers/databases.ts'
import { openSse, type SseStream } from '../helpers/sse.ts'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { freshDatabase, serveUntilReady, type ServeProcess } from './support.ts'

test(
  'two processes: votes through one reach the live subscribers of both; a reconnection to the other resumes by Last-Event-ID',
  { skip: serverUrl() ? false : 'PostgreSQL only: processes share a database server' },
  async () => {
    const database = await freshDatabase()
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const servers: ServeProcess[] = []
    const streams: SseStream[] = []
    try {
      const user = async (name: string) =>
        (
          await client.query(`insert into users (username, email) values ($1, $1 || '@example.net') returning id`, [
            `${name}-${randomBytes(4).toString('hex')}`,
          ])
        ).rows[0].id as number
      const question = (
        await client.query(`insert into questions (user_id, question, slug, publish) values ($1, 'Live?', $2, true) returning id`, [
          await user('author'),
          `live-${randomBytes(4).toString('hex')}`,
        ])
      ).rows[0].id as number
      const tokens: string[] = []
      for (let i = 0; i < 20; i++) {
        const token = newToken()
        await client.query(`insert into auth_tokens (user_id, key_hash, name) values ($1, $2, 'test')`, [
          await user(`voter${i}`),
          hashSecret(token),
        ])
        tokens.push(token)
      }
      const env = { ...database.service, LIVE_INTERVAL_MS: '200' }
      const [a, b] = [await serveUntilReady(env), await serveUntilReady(env)]
      servers.push(a.server, b.server)
      const live = `/api/questions/${question}/live/`
      const onA = await openSse(`${a.base}${live}`)
      const onB = await openSse(`${b.base}${live}`)
      streams.push(onA, onB)
      const [firstA, firstB] = [await onA.next(), await onB.next()]
      assert.equal(firstA.data.direct_vote_count, 0)
      assert.equal(firstA.id, firstB.id, 'both processes name the same figures alike')

      const vote = (through: string, token: string, value: number) =>
        fetch(`${through}/api/question_votes/`, {
          method: 'POST',
          headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ object_id: question, value }),
        })
      // Votes through A only: B's subscribers hear of them through the database.
      assert.equal((await vote(a.base, tokens[0], 4)).status, 201)
      const heardOnB = await onB.until((event) => event.data.direct_vote_count === 1, 'the vote through A, on B', 10_000)

      // A surge through both: each subscriber ends with the stored figures, after far fewer events than votes.
      const results = await Promise.all(tokens.slice(1).map((token, i) => vote(i % 2 ? a.base : b.base, token, 1 + (i % 5))))
      assert.ok(results.every((response) => response.status === 201))
      // The stored counts once the answers' deltas are folded in (migration 046).
      await client.query('select fold_figure_deltas(true)')
      const stored = (
        await client.query('select direct_vote_count, direct_sum, liquid_vote_count from questions where id = $1', [question])
      ).rows[0]
      assert.equal(Number(stored.direct_vote_count), tokens.length)
      for (const stream of [onA, onB]) {
        const last = await stream.until((event) => event.data.direct_vote_count === tokens.length, 'the last figures', 10_000)
        assert.equal(last.data.direct_sum, Number(stored.direct_sum))
        assert.equal(last.data.liquid_vote_count, Number(stored.liquid_vote_count))
        assert.ok(stream.events.length < tokens.length, `${stream.events.length} events for ${tokens.length} votes`)
      }
      const lastOnA = onA.events.at(-1)!
      assert.equal(onB.events.at(-1)!.id, lastOnA.id)

      // A subscriber of A moves to B with what it has seen: nothing until the next change, which comes.
      onA.close()
      const moved = await openSse(`${b.base}${live}`, { 'last-event-id': lastOnA.id! })
      streams.push(moved)
      // And one that saw only the first vote is sent the figures at once.
      const behind = await openSse(`${b.base}${live}`, { 'last-event-id': heardOnB.id! })
      streams.push(behind)
      assert.equal((await behind.next()).data.direct_vote_count, tokens.length)
      const extra = await (async () => {
        const token = newToken()
        await client.query(`insert into auth_tokens (user_id, key_hash, name) values ($1, $2, 'test')`, [
          await user('late'),
          hashSecret(token),
        ])
        return token
      })()
      assert.equal((await vote(a.base, extra, 5)).status, 201)
      assert.equal((await moved.next(10_000)).data.direct_vote_count, tokens.length + 1, 'the first event after moving is the new vote')

      // A change made outside the service (an operator's script) reaches the streams too.
      await client.query('update questions set publish = false where id = $1', [question])
      const gone = await moved.until((event) => event.event === 'gone', 'the question hidden from anonymous subscribers', 10_000)
      assert.deepEqual(gone.data, { id: question })
    } finally {
      for (const stream of streams) stream.close()
      for (const server of servers) server.child.kill('SIGTERM')
      await Promise.all(servers.map((server) => server.exited))
      await client.end()
      await database.drop()
    }
  },
)
