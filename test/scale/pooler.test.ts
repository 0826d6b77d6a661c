import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { clusterSkipReason, startCluster, type PostgresCluster } from '../helpers/postgres-cluster.ts'
import { jsonClient } from '../helpers/json-client.ts'
import { serveUntilReady, until, type ServeProcess } from '../reliability/support.ts'

/**
 * `civic-survey serve` behind PgBouncer in transaction mode (docs/operations.md, Transaction pooler): its pool on
 * DATABASE_URL = PgBouncer (3 server connections for the service's 10), LISTEN and migrations on
 * DATABASE_DIRECT_URL = the primary, and a streaming replica for reads, as in production. Every statement may land
 * on another server connection, so anything that leaned on session state would show here.
 */

const skip = clusterSkipReason({ pooler: true })
let cluster: PostgresCluster
let server: ServeProcess
let base: string

before(async () => {
  if (skip) return
  const started = performance.now()
  cluster = await startCluster({ replica: true, pooler: true, seed: false })
  ;({ server, base } = await serveUntilReady({
    DATABASE_URL: cluster.poolerUrl!,
    DATABASE_DIRECT_URL: cluster.primaryUrl,
    DATABASE_REPLICA_URLS: cluster.replicaUrl!,
    // The service's own statement timeout, sent as a start-up parameter that PgBouncer is told to ignore.
    DB_STATEMENT_TIMEOUT_MS: '30000',
  }))
  console.error(`# cluster, pooler and serve ready in ${Math.round(performance.now() - started)} ms`)
})

after(async () => {
  if (server) {
    server.child.kill('SIGTERM')
    await server.exited
  }
  await cluster?.stop()
})

const call = (method: string, path: string, body?: unknown, token?: string) => jsonClient(base)(method, path, body, token)

async function register(): Promise<{ id: number; token: string; username: string; password: string }> {
  const username = `pooled${randomBytes(4).toString('hex')}`
  const password = 'lantern-orchard-42'
  const { status, json } = await call('POST', '/auth/register/', { username, email: `${username}@example.org`, password })
  assert.equal(status, 201, JSON.stringify(json))
  return { id: json.id, token: json.auth_token, username, password }
}

async function signedInUser(): Promise<{ id: number; token: string }> {
  const name = `voter${randomBytes(4).toString('hex')}`
  const [row] = await cluster.onPrimary<{ id: number }>(
    `insert into users (username, email, first_name, last_name) values ($1, $1 || '@example.org', 'V', 'P') returning id`,
    [name],
  )
  const token = newToken()
  await cluster.onPrimary(`insert into auth_tokens (user_id, key_hash, name) values ($1, $2, 'test')`, [row!.id, hashSecret(token)])
  return { id: row!.id, token }
}

test(
  'sign-up, login, a question, answers, a comment, a delegation and listings work through PgBouncer in transaction mode',
  { skip },
  async () => {
    const [alice, bob] = [await register(), await register()]

    const login = await call('POST', '/auth/login/', { username: alice.username, password: alice.password })
    assert.equal(login.status, 200, JSON.stringify(login.json))
    const token = login.json.auth_token as string
    assert.notEqual(token, alice.token)
    // The new token and the new account are read at once, whichever server connection or replica serves the read.
    const me = await call('GET', '/auth/me/', undefined, token)
    assert.equal(me.status, 200, JSON.stringify(me.json))
    assert.equal(me.json.id, alice.id)

    const asked = await call('POST', '/api/questions/', { question: 'Should the library open on Sundays?' }, token)
    assert.equal(asked.status, 201, JSON.stringify(asked.json))
    const question = asked.json.id as number
    const mine = await call('GET', `/api/questions/${question}/`, undefined, token)
    assert.equal(mine.status, 200)
    assert.equal(mine.json.question, 'Should the library open on Sundays?')

    // An anonymous detail kept in memory follows a change made by another process at once: its notice arrives over
    // the listening connection (straight to the primary; through the pooler it would be lost).
    const detail = () => call('GET', `/api/questions/${question}/`)
    await until(async () => (await fetch(`${base}/api/questions/${question}/`)).headers.get('x-cache') === 'HIT', 'the detail is kept')
    await cluster.onPrimary(`update questions set question = 'Should the library open on Sundays and holidays?' where id = $1`, [question])
    await until(async () => (await detail()).json.question.endsWith('and holidays?'), 'the kept detail follows the notice', 3_000)

    const vote = await call('POST', '/api/question_votes/', { value: 4, object_id: question, private: false }, token)
    assert.equal(vote.status, 201, JSON.stringify(vote.json))

    const text = `Only if the heating works ${randomBytes(2).toString('hex')}`
    const said = await call('POST', '/api/comments/', { text, question }, bob.token)
    assert.equal(said.status, 201, JSON.stringify(said.json))
    const comments = await call('GET', `/api/comments/?question=${question}`, undefined, bob.token)
    assert.equal(comments.status, 200)
    assert.ok(
      comments.json.results.some((c: { text: string }) => c.text === text),
      'the comment is listed for its author',
    )

    const delegated = await call('POST', '/api/question_delegation/', { question, trustee: alice.id }, bob.token)
    assert.equal(delegated.status, 201, JSON.stringify(delegated.json))

    // Answers from many people at once: more transactions than PgBouncer has server connections. (Their accounts
    // are made in SQL: a sign-up costs a 64 MiB password hash in the served process.)
    const voters = await Promise.all(Array.from({ length: 8 }, () => signedInUser()))
    const votes = await Promise.all(
      voters.map((voter, i) =>
        call('POST', '/api/question_votes/', { value: 1 + (i % 5), object_id: question, private: false }, voter.token),
      ),
    )
    assert.deepEqual(
      votes.map((v) => v.status),
      voters.map(() => 201),
    )

    await until(async () => (await detail()).json.direct_vote_count === 1 + voters.length, 'the kept answer follows the votes', 5_000)
    const listing = await call('GET', `/api/questions/?page_size=50`, undefined, token)
    assert.equal(listing.status, 200)
    const listed = listing.json.results.find((q: { id: number }) => q.id === question)
    assert.equal(listed.direct_vote_count, 1 + voters.length)

    const ready = await call('GET', '/readyz')
    assert.equal(ready.status, 200)
    assert.equal(ready.json.databases.primary, 'ok')
    assert.doesNotMatch(server.output(), /"level":(50|60)/, `no error in the log:\n${server.output()}\n${cluster.logs()}`)
  },
)
