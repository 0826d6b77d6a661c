import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { familyCounts } from '../../src/engines/statistics/tally.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'
import { collection, inGroup, mcq, tagged } from './support.ts'

/** Every parameter, and every call the clients make, on a database holding only these rows. */
let t: TestApp
const ids: Record<string, number> = {}
const sets: Record<string, number[]> = {}
const tokens: Record<string, string> = {}

before(async () => {
  t = await createTestApp('empty')
  const db = t.database.db
  for (const name of ['author', 'asker', 'me', 'profile']) {
    const user = await insertUser(db, { username: `${name}-${process.pid}` })
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  const q = async (name: string, values: object = {}, by = ids.author) =>
    (ids[name] = (await insertQuestion(db, by, { question: `Topic ${name}`, ...values })).id)
  for (let i = 0; i < 6; i++) await q(`plain${i}`)
  await q('asked1', {}, ids.asker)
  await q('asked2', { question: 'Unusual wording about lighthouses' }, ids.asker)
  ids.choice = (await mcq(db, ids.author, { question: 'Pick one' })).id
  await q('hidden', { publish: false })
  sets.all = ['plain0', 'plain1', 'plain2', 'plain3', 'plain4', 'plain5', 'asked1', 'asked2', 'choice'].map((name) => ids[name])

  ids.group = (await insertGroup(db)).id
  sets.group = [ids.plain0, ids.plain1, ids.plain2]
  await inGroup(db, ids.group, sets.group)
  await inGroup(db, ids.group, [ids.plain3], false)
  ids.tag = (await insertTag(db)).id
  sets.tag = [ids.plain1, ids.plain2, ids.plain4, ids.hidden]
  await tagged(db, ids.tag, sets.tag)
  ids.collection = await collection(db, ids.author, [
    { questionId: ids.plain5, order: 2 },
    { questionId: ids.choice, order: 1 },
  ])
  // The profile user answered three, one of them privately, which others may not learn.
  await db
    .insertInto('question_votes')
    .values([
      { question_id: ids.plain0, user_id: ids.profile, value: 3 },
      { question_id: ids.plain2, user_id: ids.profile, value: null, skipped: true },
      { question_id: ids.asked1, user_id: ids.profile, value: 1, private: true },
    ])
    .execute()
  // I answered plain1 and skipped the choice question.
  await db.insertInto('question_votes').values({ question_id: ids.plain1, user_id: ids.me, value: 5 }).execute()
  const [choiceId] = await db
    .selectFrom('question_choices')
    .select('id')
    .where('question_id', '=', ids.choice)
    .orderBy('store_number')
    .execute()
  await db
    .insertInto('question_choice_votes')
    .values({ question_id: ids.choice, choice_id: choiceId.id, user_id: ids.me, value: null, skipped: true })
    .execute()
  // Consensus decides ordering=-liquid_consensus (computed from the counts): plain4 1, asked2 0.86, plain2 0.72.
  for (const [name, counts] of [
    ['plain4', [0, 0, 4, 0, 0]],
    ['plain2', [1, 1, 1, 0, 0]],
    ['asked2', [0, 0, 3, 1, 0]],
  ] as const) {
    const liquid = familyCounts('liquid', { counts: [...counts], skipped: 0 })
    await db.updateTable('questions').set(liquid).where('id', '=', ids[name]).execute()
  }
})
after(() => t.close())

const me = () => ({ authorization: `Token ${tokens.me}` })
const served = (body: any) => body.results.map((q: any) => q.id)
const without = (list: number[], ...drop: number[]) => list.filter((id) => !drop.includes(id))
const ANSWERED_BY_ME = () => [ids.plain1, ids.choice]

describe('the calls clients make', () => {
  const cases: [string, () => string, () => number[]][] = [
    ['group flow', () => `group=${ids.group}&limit_count=2`, () => sets.group],
    ['topic flow', () => `tags__tag=${ids.tag}&limit_count=100`, () => [ids.plain1, ids.plain2, ids.plain4]],
    ['collection flow', () => `in_collections__parent=${ids.collection}&limit_count=100`, () => [ids.plain5, ids.choice]],
    ['profile answered flow', () => `answered_by=${ids.profile}&limit_count=100`, () => [ids.plain0, ids.plain2]],
    ['profile asked flow', () => `user__id=${ids.asker}&limit_count=100`, () => [ids.asked1, ids.asked2]],
    ['group and topic flow', () => `group=${ids.group}&tags__tag=${ids.tag}&limit_count=100`, () => [ids.plain1, ids.plain2]],
  ]
  for (const [name, query, matching] of cases) {
    test(`${name}: /api/next_question/ counts and serves the matching questions, signed in and anonymously`, async () => {
      const limit = Number(new URLSearchParams(query()).get('limit_count'))
      const mine = await t.json(`/api/next_question/?${query()}`, me())
      const remaining = without(matching(), ...ANSWERED_BY_ME())
      assert.equal(mine.count, matching().length)
      assert.equal(mine.unanswered, remaining.length)
      assert.deepEqual(served(mine), remaining.slice(0, limit))
      assert.equal(mine.returning, mine.results.length)
      for (const question of mine.results) {
        assert.equal(typeof question.question, 'string')
        assert.equal(typeof question.subtype, 'string')
        assert.deepEqual(question.my_vote, [])
        assert.ok(Array.isArray(question.choices))
      }
      const anonymous = await t.get(`/api/next_question/?${query()}`)
      assert.equal(anonymous.statusCode, 200)
      assert.equal(anonymous.json().count, matching().length)
      assert.equal(anonymous.json().unanswered, matching().length, 'anonymous callers have answered nothing')
    })
  }

  test("the chatbot's literal ?&id__in!=… excludes those questions, anonymously", async () => {
    const response = await t.get(`/api/next_question/?&id__in!=${ids.plain0},${ids.plain1},${ids.plain2}`)
    assert.equal(response.statusCode, 200)
    const body = response.json()
    assert.equal(body.results[0].id, ids.plain3)
    assert.equal(typeof body.results[0].question, 'string')
    assert.equal(body.count, sets.all.length - 3)
    assert.deepEqual(served(await t.json(`/api/next_question_light/?id__in!=${ids.plain0}&limit_count=2`)), [ids.plain1, ids.plain2])
    assert.equal((await t.json('/api/next_question/?id__in!=')).results[0].id, ids.plain0, 'an empty list excludes nothing')
  })

  test('HEAD and OPTIONS on both paths; Allow is GET, HEAD, OPTIONS', async () => {
    for (const path of ['/api/next_question/', '/api/next_question_light/']) {
      const head = await t.request({ method: 'HEAD', url: path })
      assert.equal(head.statusCode, 200)
      assert.equal(head.headers.allow, 'GET, HEAD, OPTIONS')
      const options = await t.request({ method: 'OPTIONS', url: path })
      assert.equal(options.statusCode, 200)
      assert.equal((await t.send('POST', path, {}, tokens.me)).statusCode, 405)
    }
  })
})

describe('parameters', () => {
  test('with no parameters: one question, the lowest id not answered', async () => {
    const body = await t.json('/api/next_question_light/', me())
    assert.deepEqual(body, { ...body, returning: 1, count: sets.all.length, unanswered: sets.all.length - 2 })
    assert.deepEqual(served(body), [ids.plain0])
    assert.deepEqual(
      served(await t.json('/api/next_question_light/?id__in!=' + ids.plain0, me())),
      [ids.plain2],
      'answered plain1 is skipped over',
    )
  })

  test('ordering by a question field, reversed with -; unknown names fall back to id order', async () => {
    const body = await t.json('/api/next_question_light/?ordering=-liquid_consensus&limit_count=3', me())
    assert.deepEqual(served(body), [ids.plain4, ids.asked2, ids.plain2])
    assert.deepEqual(served(await t.json('/api/next_question_light/?ordering=nonsense', me())), [ids.plain0])
  })

  test('search, user__username and votes__user__username', async () => {
    assert.deepEqual(served(await t.json('/api/next_question_light/?search=lighthouses')), [ids.asked2])
    const asked = await t.json(`/api/next_question_light/?user__username=asker-${process.pid}&limit_count=30`)
    assert.deepEqual(served(asked), [ids.asked1, ids.asked2])
    const voted = await t.json(`/api/next_question_light/?votes__user__username=profile-${process.pid}&limit_count=30`)
    assert.deepEqual(served(voted), [ids.plain0, ids.plain2], 'a private answer is not revealed')
  })

  test('id__in keeps only those ids', async () => {
    const body = await t.json(`/api/next_question_light/?id__in=${ids.plain1},${ids.plain3},${ids.hidden}&limit_count=30`, me())
    assert.deepEqual(served(body), [ids.plain3])
    assert.equal(body.count, 2)
    assert.equal(body.unanswered, 1)
  })

  test('limit_count: 1 by default, fewer only when fewer remain', async () => {
    assert.equal((await t.json('/api/next_question_light/?limit_count=3', me())).returning, 3)
    const all = await t.json('/api/next_question_light/?limit_count=30', me())
    assert.deepEqual(served(all), without(sets.all, ...ANSWERED_BY_ME()))
  })

  test('return_unanswered_count and return_full_count: both counts, no questions', async () => {
    for (const flag of ['return_unanswered_count', 'return_full_count']) {
      const body = await t.json(`/api/next_question_light/?${flag}=1&group=${ids.group}`, me())
      assert.deepEqual(body, { returning: 0, results: [], count: 3, unanswered: 2 })
    }
    assert.equal((await t.json('/api/next_question_light/?return_full_count=0', me())).returning, 1, '0 is off')
  })

  test('the unfiltered walk (answers merged in question order) and a filtered one (probes) agree', async () => {
    const everything = `id__in=${sets.all.join(',')}&limit_count=30`
    // profile answered the lowest id, so its walk starts further on.
    for (const who of ['me', 'profile']) {
      const headers = { authorization: `Token ${tokens[who]}` }
      for (const suffix of ['', '&ordering=-id', '&ordering=-liquid_consensus', '&id__in!=' + ids.plain1]) {
        const merged = await t.json(`/api/next_question_light/?limit_count=30${suffix}`, headers)
        const probed = await t.json(`/api/next_question_light/?${everything}${suffix}`, headers)
        assert.deepEqual(merged, probed, `${who}${suffix}`)
      }
      assert.deepEqual(
        served(await t.json('/api/next_question_light/?limit_count=2', headers)),
        without(sets.all, ...(who === 'me' ? ANSWERED_BY_ME() : [ids.plain0, ids.plain2, ids.asked1])).slice(0, 2),
      )
    }
  })

  test('a question answered in both answer tables (the API never allows it) is counted once and not served', async () => {
    const db = t.database.db
    const user = await insertUser(db)
    const token = await t.tokenFor(user.id)
    const [choice] = await db.selectFrom('question_choices').select('id').where('question_id', '=', ids.choice).execute()
    await db.insertInto('question_votes').values({ question_id: ids.choice, user_id: user.id, value: 2 }).execute()
    await db
      .insertInto('question_choice_votes')
      .values({ question_id: ids.choice, choice_id: choice.id, user_id: user.id, value: 5 })
      .execute()
    for (const query of ['limit_count=30', `id__in=${sets.all.join(',')}&limit_count=30`, 'return_unanswered_count=1']) {
      const body = await t.json(`/api/next_question_light/?${query}`, { authorization: `Token ${token}` })
      assert.equal(body.count, sets.all.length, query)
      assert.equal(body.unanswered, sets.all.length - 1, query)
      if (body.returning) assert.deepEqual(served(body), without(sets.all, ids.choice), query)
    }
  })

  test('the answer takes a constant number of statements, whatever limit_count', async () => {
    const one = await t.get('/api/next_question_light/?limit_count=1', me())
    const many = await t.get('/api/next_question_light/?limit_count=30', me())
    assert.equal(one.headers['x-query-count'], many.headers['x-query-count'])
    assert.ok(Number(many.headers['x-query-count']) <= 4, `statements: ${many.headers['x-query-count']}`)
  })
})

describe('limit_count bounds and bad input', () => {
  test('above 30: 400 on next_question_light, served (up to 100) on next_question', async () => {
    const db = t.database.db
    const tag = await insertTag(db)
    const many: number[] = []
    for (let i = 0; i < 35; i++) many.push((await insertQuestion(db, ids.author)).id)
    await tagged(db, tag.id, many)
    const refused = await t.get(`/api/next_question_light/?tags__tag=${tag.id}&limit_count=31`)
    assert.equal(refused.statusCode, 400)
    assert.deepEqual(refused.json(), { limit_count: ['Ensure this value is less than or equal to 30.'] })
    const thirty = await t.json(`/api/next_question_light/?tags__tag=${tag.id}&limit_count=30`)
    assert.deepEqual(served(thirty), many.slice(0, 30))
    const all = await t.json(`/api/next_question/?tags__tag=${tag.id}&limit_count=100`)
    assert.deepEqual(served(all), many)
    assert.deepEqual([all.returning, all.count, all.unanswered], [35, 35, 35])
  })

  const bad: [string, Record<string, string[]>][] = [
    ['limit_count=0', { limit_count: ['Ensure this value is greater than or equal to 1.'] }],
    ['limit_count=-2', { limit_count: ['Ensure this value is greater than or equal to 1.'] }],
    ['limit_count=1.5', { limit_count: ['Enter a whole number.'] }],
    ['limit_count=ten', { limit_count: ['Enter a whole number.'] }],
    ['group=abc', { group: ['Enter a whole number.'] }],
    ['in_collections__parent=-1', { in_collections__parent: ['Ensure this value is greater than or equal to 0.'] }],
    ['id__in!=1,x', { 'id__in!': ['Enter a whole number.'] }],
    ['order=maybe', { order: ['Must be a valid boolean.'] }],
    ['return_full_count=yes please', { return_full_count: ['Must be a valid boolean.'] }],
  ]
  for (const path of ['/api/next_question/', '/api/next_question_light/']) {
    for (const [query, expected] of bad) {
      test(`${path}?${query}: 400 naming the parameter`, async () => {
        const response = await t.get(`${path}?${query.replace(' ', '%20')}`)
        assert.equal(response.statusCode, 400)
        assert.deepEqual(response.json(), expected)
      })
    }
  }

  test('a bad token is still 401, as everywhere', async () => {
    assert.equal((await t.get('/api/next_question/', { authorization: 'Token nope' })).statusCode, 401)
  })
})
