import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { CLI_SCRIPT } from '../helpers/cli/command.ts'
import { serverUrl } from '../helpers/databases.ts'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { runCommand } from '../cli/run-command.ts'
import { freePort, freshDatabase, HIGH_LIMITS, until } from './support.ts'
import { dropRedisKeys, REDIS_URL, redisPrefix, redisSkip } from '../helpers/redis.ts'

// Several processes share people's marks in Redis, so a person's own write is read at once through any of them.
const redisSkipped = await redisSkip()
const REDIS_PREFIX = redisPrefix('processes')

interface Served {
  base: string
  child: ChildProcess
  output: () => string
}

async function serve(database: Record<string, string>): Promise<Served> {
  const port = await freePort()
  const child = spawn(process.execPath, [CLI_SCRIPT, 'serve'], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      REDIS_URL,
      REDIS_PREFIX,
      ...database,
      ...HIGH_LIMITS,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const base = `http://127.0.0.1:${port}`
  await until(async () => (await fetch(`${base}/healthz`).catch(() => null))?.status === 200, `the service answers\n${output}`, 60_000)
  return { base, child, output: () => output }
}

/** An anonymous read until it comes from memory, so the test starts from a kept answer. */
async function kept(url: string): Promise<void> {
  await until(async () => (await fetch(url)).headers.get('x-cache') === 'HIT', `${url} kept in memory`)
}

test(
  'two processes: a vote through one shows in the other, at once for its author and within a second for anyone; answers through both at once stay exact',
  { skip: serverUrl() ? redisSkipped : 'PostgreSQL only: processes share a database server' },
  async () => {
    const database = await freshDatabase()
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const processes: Served[] = []
    try {
      const user = async (name: string) =>
        (
          await client.query(
            `insert into users (username, email, first_name, last_name) values ($1, $1 || '@example.net', 'T', 'P') returning id`,
            [`${name}-${randomBytes(4).toString('hex')}`],
          )
        ).rows[0].id as number
      const author = await user('author')
      const question = (
        await client.query(`insert into questions (user_id, question, slug, publish) values ($1, 'Kept?', $2, true) returning id`, [
          author,
          `kept-${randomBytes(4).toString('hex')}`,
        ])
      ).rows[0].id as number
      const tokens: string[] = []
      for (let i = 0; i < 12; i++) {
        const token = newToken()
        await client.query(`insert into auth_tokens (user_id, key_hash, name) values ($1, $2, 'test')`, [
          await user(`voter${i}`),
          hashSecret(token),
        ])
        tokens.push(token)
      }
      const [writer, reader] = [await serve(database.service), await serve(database.service)]
      processes.push(writer, reader)
      const detail = `${reader.base}/api/questions/${question}/`
      const listing = `${reader.base}/api/questions/?id=${question}`
      await kept(detail)
      await kept(listing)
      const countIn = async (url: string, token?: string) => {
        const response = await fetch(url, token ? { headers: { authorization: `Token ${token}` } } : {})
        const body = (await response.json()) as { direct_vote_count?: number; results?: { direct_vote_count: number }[] }
        return body.results ? body.results[0]!.direct_vote_count : body.direct_vote_count!
      }
      assert.equal(await countIn(detail), 0)

      // One vote through the writer: its author reads it through the reader at once.
      const vote = await fetch(`${writer.base}/api/question_votes/`, {
        method: 'POST',
        headers: { authorization: `Token ${tokens[0]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ object_id: question, value: 4 }),
      })
      assert.equal(vote.status, 201, await vote.text())
      assert.equal(await countIn(detail, tokens[0]), 1, 'the author sees the figure at once')
      const start = Date.now()
      await until(async () => (await countIn(detail)) === 1 && (await countIn(listing)) === 1, 'anyone sees the vote', 1_000)
      assert.ok(Date.now() - start < 1_000)

      // A crowd through the writer while the reader is read: afterwards every read shows the exact count.
      const reads: Promise<number>[] = []
      await Promise.all(
        tokens.slice(1).map(async (token, i) => {
          reads.push(countIn(detail))
          const response = await fetch(`${writer.base}/api/question_votes/`, {
            method: 'POST',
            headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ object_id: question, value: 1 + (i % 5) }),
          })
          assert.equal(response.status, 201)
        }),
      )
      for (const count of await Promise.all(reads)) assert.ok(count >= 1 && count <= tokens.length)
      // The stored counts once the answers' deltas are folded in (migration 046).
      await client.query('select fold_figure_deltas(true)')
      const stored = Number(
        (await client.query('select direct_vote_count from questions where id = $1', [question])).rows[0].direct_vote_count,
      )
      assert.equal(stored, tokens.length)
      await until(
        async () => (await countIn(detail)) === stored && (await countIn(listing)) === stored,
        'the reader has the last figure',
        1_000,
      )
      for (let i = 0; i < 20; i++) {
        assert.equal(await countIn(detail), stored, 'no stale figure survives')
        assert.equal(await countIn(listing), stored)
      }
      // Answers and changes of answer through both processes at once, on two questions: every stored figure equals a
      // recomputation from the raw answers afterwards, and both processes serve the final figures.
      const second = (
        await client.query(`insert into questions (user_id, question, slug, publish) values ($1, 'Both?', $2, true) returning id`, [
          author,
          `both-${randomBytes(4).toString('hex')}`,
        ])
      ).rows[0].id as number
      await Promise.all(
        tokens.flatMap((token, i) =>
          [question, second].map(async (target, j) => {
            const through = (i + j) % 2 === 0 ? writer : reader
            for (const value of [1 + ((i + j) % 5), 5 - (i % 5)]) {
              const response = await fetch(`${through.base}/api/question_votes/`, {
                method: 'POST',
                headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
                body: JSON.stringify({ object_id: target, value }),
              })
              assert.ok(response.status === 200 || response.status === 201, await response.text())
            }
          }),
        ),
      )
      // The questions were inserted beside the service: their author's counter is set as the service would have.
      await client.query('update users set count_questions = (select count(*) from questions where user_id = $1) where id = $1', [author])
      const check = await runCommand(['check'], database.service)
      assert.equal(check.code, 0, check.stdout + check.stderr)
      await client.query('select fold_figure_deltas(true)')
      const figures = async (id: number) =>
        (await client.query('select direct_vote_count, direct_sum from questions where id = $1', [id])).rows[0] as {
          direct_vote_count: number
          direct_sum: number
        }
      for (const id of [question, second]) {
        const stored = await figures(id)
        assert.equal(Number(stored.direct_vote_count), tokens.length)
        for (const served of [writer, reader]) {
          await until(
            async () => {
              const body = (await (await fetch(`${served.base}/api/questions/${id}/`)).json()) as { direct_sum: number }
              return Number(body.direct_sum) === Number(stored.direct_sum)
            },
            `${served.base} serves question ${id}'s last figures`,
            1_000,
          )
        }
      }

      // A change made by neither process (a script, an operator) reaches them too.
      await client.query(`update questions set question = 'Changed by a script?' where id = $1`, [question])
      await until(
        async () => ((await (await fetch(detail)).json()) as { question: string }).question === 'Changed by a script?',
        'the script',
        1_000,
      )
    } finally {
      for (const served of processes) served.child.kill('SIGTERM')
      await Promise.all(
        processes.map(
          (served) => new Promise((resolve) => (served.child.exitCode !== null ? resolve(null) : served.child.on('exit', resolve))),
        ),
      )
      await client.end()
      await database.drop()
      await dropRedisKeys(REDIS_PREFIX)
    }
  },
)
