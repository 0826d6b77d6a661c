import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { dropRedisKeys, REDIS_URL, redisPrefix, redisSkip } from '../helpers/redis.ts'
import { mcq } from '../next-question/support.ts'

/**
 * Answers kept for the requests the clients send (docs/operations.md, Answers kept in memory): with an application
 * key, and signed in, where a person's own fields come from their kept record put into the kept anonymous answer.
 * Every body is compared byte for byte with the one a service keeping nothing builds from the same database.
 */

const KEEPING = { RESPONSE_CACHE_MB: '64', TOKEN_CACHE_ENTRIES: '1000', OWN_RECORDS_MB: '64' }
const queries = (response: LightMyRequestResponse) => Number(response.headers['x-query-count'])

/** Reads until the answer needs no statement (fixtures' notices arrive a moment after their commits). */
async function warm(t: TestApp, url: string, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  let response = await t.get(url, headers)
  for (let i = 0; i < 50 && queries(response) > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5))
    response = await t.get(url, headers)
  }
  return response
}

describe('kept and freshly built answers are byte-equal', () => {
  let kept: TestApp
  let built: TestApp
  let key: string
  const people: Record<string, { id: number; token: string; username: string }> = {}
  const q: Record<string, number> = {}

  before(async () => {
    kept = await createTestApp('tiny', KEEPING)
    built = await createTestApp('tiny', {}, undefined, { database: kept.database })
    const db = kept.database.db
    key = (await appKeysRepository(db).create('web app')).key
    for (const name of ['me', 'author', 'other', 'fresh', 'drafter']) {
      const user = await insertUser(db)
      people[name] = { id: user.id, token: await kept.tokenFor(user.id), username: user.username }
    }
    const staff = await insertUser(db, { is_staff: true })
    people.staff = { id: staff.id, token: await kept.tokenFor(staff.id), username: staff.username }
    q.open = (await insertQuestion(db, people.author!.id, { publish: true })).id
    q.privately = (await insertQuestion(db, people.author!.id, { publish: true })).id
    q.skipped = (await insertQuestion(db, people.author!.id, { publish: true })).id
    const choice = await mcq(db, people.author!.id, { publish: true })
    q.choice = choice.id
    q.draft = (await insertQuestion(db, people.drafter!.id, { publish: false })).id
    q.drafterPublished = (await insertQuestion(db, people.drafter!.id, { publish: true })).id
    const cast = async (who: string, url: string, body: object) => {
      const response = await kept.send('POST', url, body, people[who]!.token)
      assert.ok(response.statusCode === 201 || response.statusCode === 200, `${url}: ${response.body}`)
    }
    await cast('me', '/api/question_votes/', { object_id: q.open, value: 2, importance: 5 })
    await cast('me', '/api/question_votes/', { object_id: q.privately, value: 4, private: true })
    await cast('me', '/api/question_votes/', { object_id: q.skipped, value: null })
    await cast('me', '/api/question_choice_votes/', { object_id: choice.choiceIds[1], value: 5 })
    await cast('me', '/api/following_users/', { following: people.author!.id })
    await cast('other', '/api/question_votes/', { object_id: q.open, value: 5 })
    await cast('other', '/api/question_votes/', { object_id: q.privately, value: 1, private: true })
    await cast('drafter', '/api/question_votes/', { object_id: q.open, value: 3, private: true })
  })
  after(async () => {
    await built.close()
    await kept.close()
  })

  const urls = () => [
    '/api/questions/',
    '/api/questions/?page_size=2',
    '/api/questions/?page_size=2&page=2',
    `/api/questions/?answered_by=${people.other!.id}`,
    `/api/questions/?answered_by=${people.me!.id}`,
    `/api/questions/?votes__user__username=${people.other!.username}`,
    '/api/questions/?ordering=-direct_vote_count',
    '/api/questions/?ordering=-votes__created_at',
    '/api/questions/?nearby=1',
    '/api/questions/?my_history=1',
    `/api/questions/?user__username=${people.author!.username}`,
    `/api/questions/${q.open}/`,
    `/api/questions/${q.privately}/`,
    `/api/questions/${q.choice}/`,
    `/api/questions/${q.draft}/`,
    `/api/questions/${q.drafterPublished}/`,
    '/api/next_question_light/?limit_count=30',
    `/api/next_question/?user__id=${people.author!.id}&limit_count=100`,
    `/api/next_question/?answered_by=${people.other!.id}&limit_count=100`,
  ]
  const callers = ['anyone', 'me', 'other', 'author', 'drafter', 'fresh', 'staff']
  const headersOf = (caller: string, keyed: 'no key' | 'query' | 'header'): Record<string, string> => ({
    ...(caller === 'anyone' ? {} : { authorization: `Token ${people[caller]!.token}` }),
    ...(keyed === 'header' ? { appauthorization: key } : {}),
  })
  const withKey = (url: string, keyed: string) =>
    keyed === 'query' ? `${url}${url.includes('?') ? '&' : '?'}AppAuthorization=${key}` : url

  test('keyed and keyless, anonymous and signed in, with and without answers, private ones too', async () => {
    let compared = 0
    for (const keyed of ['no key', 'query', 'header'] as const) {
      for (const caller of callers) {
        for (const path of urls()) {
          const url = withKey(path, keyed)
          const headers = headersOf(caller, keyed)
          const whole = await built.get(url, headers)
          for (const round of ['built', 'kept']) {
            const response = await kept.get(url, headers)
            assert.equal(response.statusCode, whole.statusCode, `${caller}, ${keyed}, ${round}: ${url}: ${response.body}`)
            assert.equal(response.body, whole.body, `${caller}, ${keyed}, ${round}: ${url}`)
            compared++
          }
        }
      }
    }
    assert.equal(compared, 3 * callers.length * urls().length * 2)
  })

  test("every resource of the API root that keeps its answers, keyed and keyless, answers a whole build's bytes", async () => {
    const index = (await built.json('/api/')) as Record<string, string>
    const paths = Object.values(index).map((url) => new URL(url).pathname + new URL(url).search)
    let keptOnes = 0
    for (const keyed of ['no key', 'query', 'header'] as const) {
      for (const path of paths) {
        const url = withKey(path, keyed)
        const headers = headersOf('anyone', keyed)
        const whole = await built.get(url, headers)
        for (const round of ['built', 'kept']) {
          const response = await kept.get(url, headers)
          assert.equal(response.statusCode, whole.statusCode, `${keyed}, ${round}: ${url}`)
          // Only what is kept need equal a build made a moment apart (some figures carry their time).
          if (response.headers['x-cache'] === undefined) continue
          assert.equal(response.body, whole.body, `${keyed}, ${round}: ${url}`)
          if (response.headers['x-cache'] === 'HIT') keptOnes++
        }
      }
    }
    assert.ok(keptOnes >= 3 * 10, `${keptOnes} answers came from memory`)
  })

  test('what a participant sees of their own: a private answer, a skip, a choice, importance, a follow link', async () => {
    const me = headersOf('me', 'query')
    const page = (await warm(kept, withKey('/api/questions/?page_size=50', 'query'), me)).json()
    const of = (id: number) => page.results.find((question: { id: number }) => question.id === id)
    assert.deepEqual(
      of(q.open).my_vote.map((vote: { value: number }) => vote.value),
      [2],
    )
    assert.deepEqual(
      of(q.open).my_importance.map((row: { value: number }) => row.value),
      [5],
    )
    assert.equal(of(q.privately).my_vote[0].private, true)
    assert.equal(of(q.skipped).my_vote[0].skipped, true)
    assert.equal(of(q.choice).my_vote.length, 1)
    assert.equal(of(q.open).user.follow.length, 1)
    const theirs = (await kept.json(withKey(`/api/questions/?answered_by=${people.other!.id}`, 'query'), me)).results
    const seen = theirs.find((question: { id: number }) => question.id === q.open)
    assert.deepEqual(
      seen.their_vote.map((vote: { value: number }) => vote.value),
      [5],
    )
    assert.equal(
      theirs.some((question: { id: number }) => question.id === q.privately),
      false,
      "someone else's private answer names no question",
    )
  })

  test('kept: no statement for a keyed anonymous page, a signed-in page and detail, a next question', async () => {
    for (const [caller, path] of [
      ['anyone', '/api/questions/'],
      ['anyone', `/api/questions/${q.open}/`],
      ['me', '/api/questions/'],
      ['me', '/api/questions/?page_size=50'],
      ['me', `/api/questions/${q.open}/`],
      ['fresh', '/api/questions/'],
      ['me', '/api/next_question_light/'],
      ['me', `/api/next_question/?user__id=${people.author!.id}&limit_count=100`],
    ] as const) {
      for (const keyed of ['query', 'header'] as const) {
        const response = await warm(kept, withKey(path, keyed), headersOf(caller, keyed))
        assert.equal(queries(response), 0, `${caller}, ${keyed}: ${path}`)
      }
    }
    assert.equal((await kept.get(withKey('/api/questions/', 'query'))).headers['x-cache'], 'HIT')
  })

  test("a person's own write shows in their next read, figures included; others' records stay kept", async () => {
    const me = headersOf('me', 'header')
    const fresh = headersOf('fresh', 'header')
    await warm(kept, `/api/questions/${q.choice}/`, me)
    await warm(kept, '/api/questions/', fresh)
    assert.ok(kept.app.ownRecords.holds(people.fresh!.id))
    const before = (await kept.json(`/api/questions/${q.choice}/`, me)).direct_vote_count
    const newer = (await insertQuestion(kept.database.db, people.author!.id, { publish: true })).id
    await warm(kept, `/api/questions/${newer}/`, me)
    await warm(kept, '/api/next_question_light/?limit_count=30', me)
    const cast = await kept.send('POST', '/api/question_votes/', { object_id: newer, value: 1 }, people.me!.token)
    assert.equal(cast.statusCode, 201, cast.body)
    const after = await kept.get(`/api/questions/${newer}/`, me)
    assert.equal(after.json().my_vote[0].value, 1)
    assert.equal(after.json().direct_vote_count, 1)
    assert.equal(after.body, (await built.get(`/api/questions/${newer}/`, me)).body)
    assert.equal((await kept.json(`/api/questions/${q.choice}/`, me)).direct_vote_count, before)
    const next = await kept.get('/api/next_question_light/?limit_count=30', me)
    assert.ok(!next.json().results.some((question: { id: number }) => question.id === newer))
    assert.ok(queries(next) <= 1, `${queries(next)} statements for the next question after the answer`)
    assert.ok(kept.app.ownRecords.holds(people.fresh!.id), "another person's record is not dropped by this one's answer")
  })

  test("an answer goes into its writer's kept record: first, replaced, private, a skip, with importance, a pick", async () => {
    const db = kept.database.db
    const person = await insertUser(db)
    const token = await kept.tokenFor(person.id)
    const headers = { authorization: `Token ${token}`, appauthorization: key }
    const asked = [
      (await insertQuestion(db, people.author!.id, { publish: true })).id,
      (await insertQuestion(db, people.author!.id, { publish: true })).id,
    ]
    const reads = [
      '/api/questions/?page_size=50',
      ...asked.map((id) => `/api/questions/${id}/`),
      '/api/next_question_light/?limit_count=30',
      `/api/questions/?answered_by=${person.id}`,
    ]
    for (const url of reads) await warm(kept, url, headers)
    for (const [question, body] of [
      [asked[1]!, { value: 3 }],
      [asked[0]!, { value: 4, importance: 2 }],
      [asked[1]!, { value: 5, private: true }],
      [asked[0]!, { value: null }],
      [asked[0]!, { value: 1, importance: 5, private: false }],
    ] as const) {
      const cast = await kept.send('POST', '/api/question_votes/', { object_id: question, ...body }, token)
      assert.ok(cast.statusCode === 201 || cast.statusCode === 200, cast.body)
      assert.ok(kept.app.ownRecords.holds(person.id), 'the record is kept with the answer in it, not dropped')
      for (const url of reads) {
        const response = await kept.get(url, headers)
        assert.equal(response.body, (await built.get(url, headers)).body, `after ${JSON.stringify(body)}: ${url}`)
      }
      const mine = (await kept.json(`/api/questions/${question}/`, headers)).my_vote
      assert.deepEqual(
        mine.map((vote: { value: number | null; private: boolean }) => [vote.value, vote.private]),
        [[body.value, 'private' in body ? body.private : (mine[0]?.private ?? false)]],
      )
    }
    // A pick, then another choice of the same question in its place.
    const choice = await mcq(db, people.author!.id, { publish: true })
    const detail = `/api/questions/${choice.id}/`
    await warm(kept, detail, headers)
    for (const [n, picked] of [choice.choiceIds[0]!, choice.choiceIds[1]!].entries()) {
      const pick = await kept.send('POST', '/api/question_choice_votes/', { object_id: picked, value: 5, private: n === 1 }, token)
      assert.ok(pick.statusCode === 201 || pick.statusCode === 200, pick.body)
      assert.ok(kept.app.ownRecords.holds(person.id), 'the pick is put in the record')
      for (const url of [detail, ...reads]) assert.equal((await kept.get(url, headers)).body, (await built.get(url, headers)).body, url)
      const mine = (await kept.json(detail, headers)).my_vote
      assert.deepEqual(
        mine.map((vote: { object_id: number; private: boolean }) => [vote.object_id, vote.private]),
        [[picked, n === 1]],
      )
    }
  })

  test('unknown ids, bad filters and pages past the end answer as a whole build does', async () => {
    const me = headersOf('me', 'query')
    for (const url of [
      '/api/questions/99999999/',
      '/api/questions/?user__id=abc',
      '/api/questions/?page=999',
      '/api/questions/?page_size=2&page=0',
    ]) {
      for (let round = 0; round < 2; round++) {
        const response = await kept.get(withKey(url, 'query'), me)
        const whole = await built.get(withKey(url, 'query'), me)
        assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${url}: ${response.statusCode}`)
        assert.equal(response.statusCode, whole.statusCode, url)
        assert.equal(response.body, whole.body, url)
      }
    }
  })

  test('a revoked key and a revoked token are refused, never served a kept answer, and keep no record alive', async () => {
    const db = kept.database.db
    const keys = appKeysRepository(db)
    const { id, key: revoked } = await keys.create('old app')
    const url = `/api/questions/?AppAuthorization=${revoked}`
    assert.equal((await warm(kept, url, {})).statusCode, 200)
    const person = await insertUser(db)
    const token = await kept.tokenFor(person.id)
    await warm(kept, '/api/questions/', { authorization: `Token ${token}` })
    assert.ok(kept.app.ownRecords.holds(person.id))
    await keys.revoke(id)
    await db.updateTable('auth_tokens').set({ revoked_at: new Date() }).where('user_id', '=', person.id).execute()
    await refusedSoon(() => kept.get(url, {}), 'the revoked key')
    await refusedSoon(() => kept.get('/api/questions/', { authorization: `Token ${token}` }), 'the revoked token')
    assert.equal(kept.app.ownRecords.holds(person.id), false)
    assert.equal((await kept.get(url.replace(revoked, `${revoked}0`), {})).statusCode, 401)
  })
})

describe('bounded memory', () => {
  test("signed-in pages' layouts and people's records stay within RESPONSE_CACHE_MB and OWN_RECORDS_MB", async () => {
    const t = await createTestApp('tiny', { ...KEEPING, RESPONSE_CACHE_MB: '1', OWN_RECORDS_MB: '1' })
    try {
      const db = t.database.db
      const author = await insertUser(db)
      for (let i = 0; i < 20; i++) await insertQuestion(db, author.id, { publish: true, description: 'x'.repeat(20_000) })
      const people = await Promise.all(Array.from({ length: 40 }, () => insertUser(db)))
      for (const person of people) {
        const headers = { authorization: `Token ${await t.tokenFor(person.id)}` }
        for (const size of [5, 10, 20]) {
          const response = await t.get(`/api/questions/?page_size=${size}&search=&user__id=${author.id}`, headers)
          assert.equal(response.statusCode, 200)
        }
      }
      const { bytes } = t.app.responseCache.size
      assert.ok(bytes > 0 && bytes <= 1024 * 1024, `${bytes} bytes kept`)
      assert.ok(t.app.ownRecords.size.bytes <= 1024 * 1024)
      assert.ok(t.app.ownRecords.size.people > 0)
    } finally {
      await t.close()
    }
  })
})

/** Polls until the request answers 401 (a change made in SQL is heard a moment after its commit). */
async function refusedSoon(request: () => Promise<LightMyRequestResponse>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  let last = 0
  while (Date.now() < deadline) {
    const response = await request()
    last = response.statusCode
    if (last === 401) return assert.equal(response.headers['x-cache'], undefined)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  assert.fail(`${what}: answered ${last}, not 401`)
}

describe('two processes', async () => {
  const skip = await redisSkip()
  const prefix = redisPrefix('own-marks')
  after(async () => {
    if (!skip) await dropRedisKeys(prefix)
  })

  test("a person's write through one process shows at once in their next read through another", { skip }, async () => {
    const shared = { ...KEEPING, REDIS_URL, REDIS_PREFIX: prefix }
    const a = await createTestApp('tiny', shared)
    const b = await createTestApp('tiny', shared, undefined, { database: a.database })
    const built = await createTestApp('tiny', {}, undefined, { database: a.database })
    try {
      const db = a.database.db
      const author = await insertUser(db)
      const person = await insertUser(db)
      const token = await a.tokenFor(person.id)
      const me = { authorization: `Token ${token}` }
      const questions = [
        (await insertQuestion(db, author.id, { publish: true })).id,
        (await insertQuestion(db, author.id, { publish: true })).id,
      ]
      const urls = ['/api/questions/?page_size=5', `/api/questions/${questions[0]}/`, '/api/next_question_light/?limit_count=5']
      for (const url of urls) for (const t of [a, b]) await warm(t, url, me)
      for (const [step, question] of questions.entries()) {
        const through = step === 0 ? a : b
        const other = step === 0 ? b : a
        const cast = await through.send('POST', '/api/question_votes/', { object_id: question, value: 2, private: step === 1 }, token)
        assert.equal(cast.statusCode, 201, cast.body)
        for (const url of urls) {
          const whole = (await built.get(url, me)).body
          assert.equal((await other.get(url, me)).body, whole, `step ${step}: ${url} through the other process`)
          assert.equal((await through.get(url, me)).body, whole, `step ${step}: ${url} through the writing process`)
        }
        const detail = await other.json(`/api/questions/${question}/`, me)
        assert.equal(detail.my_vote[0].value, 2)
        assert.equal(detail.direct_vote_count, step === 0 ? 1 : 0, 'a private answer counts nowhere public while alone')
      }
      // A key revoked is refused by every process, each having kept it.
      const keys = appKeysRepository(db)
      const { id, key } = await keys.create('shared app')
      for (const t of [a, b]) assert.equal((await warm(t, `/api/questions/?AppAuthorization=${key}`, {})).statusCode, 200)
      await keys.revoke(id)
      for (const t of [a, b]) await refusedSoon(() => t.get(`/api/questions/?AppAuthorization=${key}`, {}), 'a key revoked')
    } finally {
      await built.close()
      await b.close()
      await a.close()
    }
  })
})
