import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { TABLES_WITHOUT_NOTICE } from '../../src/db/migrations/2026-11-23-011-data-change-notices.ts'
import { DERIVED_TABLES_WITHOUT_NOTICE } from '../../src/db/migrations/2026-11-26-025-opinion-groups.ts'
import { VERSION_TABLES_WITHOUT_NOTICE } from '../../src/db/migrations/2026-11-26-026-question-set-version.ts'
import { KEPT_TABLES_WITHOUT_NOTICE } from '../../src/db/migrations/2026-11-27-031-liquid-blocks.ts'
import { DELTA_TABLES_WITHOUT_NOTICE } from '../../src/db/migrations/2026-11-28-046-answers-without-queue.ts'
import { LIQUID_DELTA_TABLES_WITHOUT_NOTICE } from '../../src/db/migrations/2026-11-30-054-liquid-weights-as-deltas.ts'
import { UNRELEASED_DELTA_TABLES_WITHOUT_NOTICE } from '../../src/db/migrations/2026-11-30-055-unreleased-tag-counts-as-deltas.ts'

const queries = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-query-count'])

/** Reads until an answer comes from memory: notices of earlier writes may arrive after a rebuild began. */
async function keptAnswer(t: TestApp, url: string) {
  for (let i = 0; i < 50; i++) {
    const response = await t.get(url)
    if (queries(response) === 0) return response
  }
  throw new Error(`${url} is never served from memory`)
}

describe('anonymous answers kept in memory', () => {
  let t: TestApp
  let voterToken: string
  let questionId: number

  before(async () => {
    t = await createTestApp('tiny', { RESPONSE_CACHE_MB: '64' })
    const author = await insertUser(t.database.db)
    const voter = await insertUser(t.database.db)
    voterToken = await t.tokenFor(voter.id)
    questionId = (await insertQuestion(t.database.db, author.id, { publish: true })).id
  })
  after(() => t.close())

  test('a second anonymous read runs no statement and answers the same bytes', async () => {
    const url = `/api/questions/${questionId}/`
    const first = await t.get(url)
    assert.equal(first.statusCode, 200)
    const second = await keptAnswer(t, url)
    assert.equal(second.statusCode, 200)
    assert.equal(second.body, first.body)
    const headers = (response: typeof first) => {
      // The clock's and the counters' headers differ from one read to the next whatever is kept.
      const {
        date,
        'x-query-count': count,
        'x-cache': cache,
        'x-ratelimit-remaining': remaining,
        'x-ratelimit-reset': reset,
        ...rest
      } = response.headers
      void [date, count, cache, remaining, reset]
      return rest
    }
    assert.deepEqual(headers(second), headers(first))
    assert.equal(second.headers['x-cache'], 'HIT')
  })

  test('a vote through HTTP shows in the next anonymous read', async () => {
    const url = `/api/questions/${questionId}/`
    const before = await t.json(url)
    await t.get(url)
    const vote = await t.send('POST', '/api/question_votes/', { object_id: questionId, value: 5 }, voterToken)
    assert.equal(vote.statusCode, 201, vote.body)
    const response = await t.get(url)
    assert.ok(queries(response) > 0, 'rebuilt after the write')
    assert.equal(response.json().direct_vote_count, before.direct_vote_count + 1)
    assert.equal((await keptAnswer(t, url)).body, response.body, 'kept again')
  })

  test('a change made beside the service (another process, a script) shows in the next read', async () => {
    const url = `/api/questions/?id=${questionId}`
    await keptAnswer(t, url)
    await t.database.db.updateTable('questions').set({ question: 'Changed elsewhere?' }).where('id', '=', questionId).execute()
    // The notice arrives after the commit, on the listening connection.
    let seen = ''
    for (let i = 0; i < 100 && seen !== 'Changed elsewhere?'; i++) {
      seen = (await t.json(url)).results[0].question
      if (seen !== 'Changed elsewhere?') await new Promise((resolve) => setTimeout(resolve, 10))
    }
    assert.equal(seen, 'Changed elsewhere?')
  })

  test('signed-in callers, HTML pages and refusals are never served from memory', async () => {
    const url = `/api/questions/${questionId}/`
    await t.get(url)
    const mine = await t.get(url, { authorization: `Token ${voterToken}` })
    assert.equal(mine.statusCode, 200)
    assert.ok(queries(mine) > 0)
    assert.equal(mine.json().my_vote.length, 1, 'the caller sees their own answer')
    const html = await t.get(url, { accept: 'text/html' })
    assert.match(String(html.headers['content-type']), /text\/html/)
    await t.get('/api/questions/999999/')
    const missing = await t.get('/api/questions/999999/')
    assert.equal(missing.statusCode, 404)
    assert.ok(queries(missing) > 0)
    const bad = await t.get('/api/questions/?user__id=abc')
    assert.equal(bad.statusCode, 400)
  })

  test("a signed-in listing's count is kept until the data changes", async () => {
    const mine = { authorization: `Token ${voterToken}` }
    const first = await t.get('/api/questions/', mine)
    let second = await t.get('/api/questions/', mine)
    for (let i = 0; i < 50 && queries(second) >= queries(first); i++) second = await t.get('/api/questions/', mine)
    assert.ok(queries(second) < queries(first), 'the count and the questions come from memory')
    assert.equal(second.json().count, first.json().count)
    await insertQuestion(t.database.db, (await insertUser(t.database.db)).id, { publish: true })
    let count = first.json().count
    for (let i = 0; i < 100 && count === first.json().count; i++) count = (await t.json('/api/questions/', mine)).count
    assert.equal(count, first.json().count + 1)
  })

  test("next_question_light's counts are kept until the data changes; the caller's own answer shows at once", async () => {
    const who = await insertUser(t.database.db)
    const mine = { authorization: `Token ${await t.tokenFor(who.id)}` }
    const first = await t.get('/api/next_question_light/', mine)
    assert.equal(first.statusCode, 200, first.body)
    let second = await t.get('/api/next_question_light/', mine)
    for (let i = 0; i < 50 && queries(second) >= queries(first); i++) second = await t.get('/api/next_question_light/', mine)
    assert.ok(queries(second) < queries(first), 'the counts come from memory')
    const before = first.json()
    assert.ok(before.results.length > 0)
    const vote = await t.send('POST', '/api/question_votes/', { object_id: questionId, value: 3 }, mine.authorization.slice(6))
    assert.equal(vote.statusCode, 201, vote.body)
    const after = (await t.json('/api/next_question_light/', mine)) as { unanswered: number }
    assert.equal(after.unanswered, before.unanswered - 1)
  })

  test('Cache-Control: no-cache builds the answer afresh, and keeps it for the next', async () => {
    const url = `/api/questions/${questionId}/`
    await keptAnswer(t, url)
    const fresh = await t.get(url, { 'cache-control': 'no-cache' })
    assert.equal(fresh.headers['x-cache'], 'MISS')
    assert.ok(queries(fresh) > 0)
    assert.equal((await t.get(url)).headers['x-cache'], 'HIT')
  })

  test('each host keeps its own answers: links are absolute', async () => {
    const url = `/api/questions/${questionId}/`
    const here = await t.get(url, { host: 'one.example' })
    const there = await t.get(url, { host: 'two.example' })
    assert.match(here.json().url, /^http:\/\/one\.example\//)
    assert.match(there.json().url, /^http:\/\/two\.example\//)
  })

  test('every table but the listed ones announces its changes', async () => {
    const { rows } = await sql<{ table: string }>`
      select c.relname as table from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' and c.relname not like 'kysely_%'
        and not exists (select 1 from pg_trigger g where g.tgrelid = c.oid and g.tgname = c.relname || '_notice')
      order by 1`.execute(t.database.db)
    assert.deepEqual(
      rows.map((row) => row.table),
      [
        ...TABLES_WITHOUT_NOTICE,
        ...DERIVED_TABLES_WITHOUT_NOTICE,
        ...VERSION_TABLES_WITHOUT_NOTICE,
        ...KEPT_TABLES_WITHOUT_NOTICE,
        ...DELTA_TABLES_WITHOUT_NOTICE,
        ...LIQUID_DELTA_TABLES_WITHOUT_NOTICE,
        ...UNRELEASED_DELTA_TABLES_WITHOUT_NOTICE,
      ].sort(),
    )
  })
})

describe('switched off', () => {
  test('RESPONSE_CACHE_MB=0 keeps nothing: every read runs its statements', async () => {
    const t = await createTestApp('tiny', { RESPONSE_CACHE_MB: '0' })
    try {
      await t.get('/api/questions/')
      assert.ok(queries(await t.get('/api/questions/')) > 0)
    } finally {
      await t.close()
    }
  })
})
