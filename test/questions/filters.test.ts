import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
const ids: Record<string, number> = {}
const auth: Record<string, Record<string, string>> = {}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  const areas = (await db.selectFrom('areas').select('id').orderBy('id').limit(5).execute()).map((row) => row.id)
  const [district, region, country, elsewhere, otherRegion] = areas
  const people: Record<string, object> = {
    me: { district_id: district, region_id: region, country_id: country },
    neighbour: { region_id: otherRegion },
    nowhere: {},
    friend: {},
    friendOfMine: {},
    pending: {},
    stranger: {},
  }
  for (const [name, values] of Object.entries(people)) {
    const user = await insertUser(db, values)
    ids[name] = user.id
    auth[name] = { authorization: `Token ${await t.tokenFor(user.id)}` }
  }
  const author = await insertUser(db)
  for (const [name, geo] of Object.entries({
    inDistrict: district,
    inRegion: region,
    inCountry: country,
    elsewhere,
    inOtherRegion: otherRegion,
  })) {
    ids[name] = (await insertQuestion(db, author.id, { question: `Local matter ${name}`, geo_id: geo })).id
  }
  ids.nowhereQuestion = (await insertQuestion(db, author.id, { question: 'A question of no place' })).id
  ids.draftInDistrict = (await insertQuestion(db, author.id, { question: 'Unpublished local matter', geo_id: district, publish: false })).id

  // History: answered in this order, the first one answered again last.
  ids.first = (await insertQuestion(db, author.id, { question: 'Alpha history' })).id
  ids.second = (await insertQuestion(db, author.id, { question: 'Charlie history', subtype: 'mcq' })).id
  ids.third = (await insertQuestion(db, author.id, { question: 'Bravo history' })).id
  ids.notMine = (await insertQuestion(db, author.id, { question: 'Answered by others only' })).id
  const choices = await db
    .insertInto('question_choices')
    .values([
      { question_id: ids.second, text: 'Left', store_number: 0 },
      { question_id: ids.second, text: 'Right', store_number: 1 },
    ])
    .returning('id')
    .execute()
  ids.left = choices[0].id
  ids.right = choices[1].id
  const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 12, minutes))
  await db
    .insertInto('question_votes')
    .values([
      { question_id: ids.first, user_id: ids.me, value: 2, created_at: at(0), modified_at: at(30) },
      { question_id: ids.third, user_id: ids.me, value: null, skipped: true, private: true, created_at: at(20), modified_at: at(20) },
      { question_id: ids.notMine, user_id: ids.stranger, value: 4 },
    ])
    .execute()
  await db
    .insertInto('question_choice_votes')
    .values({ question_id: ids.second, choice_id: ids.left, user_id: ids.me, value: 5, created_at: at(10), modified_at: at(10) })
    .execute()

  // Friends: accepted either way round, one still pending.
  await db
    .insertInto('friendships')
    .values([
      { user_id: ids.me, friend_id: ids.friend, accepted_at: new Date() },
      { user_id: ids.friendOfMine, friend_id: ids.me, accepted_at: new Date() },
      { user_id: ids.me, friend_id: ids.pending, accepted_at: null },
    ])
    .execute()
  await db
    .insertInto('question_votes')
    .values([
      { question_id: ids.notMine, user_id: ids.friend, value: 5, modified_at: at(40) },
      { question_id: ids.notMine, user_id: ids.friendOfMine, value: 1, private: true },
      { question_id: ids.notMine, user_id: ids.pending, value: 3 },
    ])
    .execute()
  await db
    .insertInto('question_choice_votes')
    .values([
      { question_id: ids.second, choice_id: ids.right, user_id: ids.friendOfMine, value: 5, modified_at: at(50) },
      { question_id: ids.second, choice_id: ids.left, user_id: ids.friend, value: 5, modified_at: at(45) },
      { question_id: ids.second, choice_id: ids.left, user_id: ids.stranger, value: 5 },
    ])
    .execute()
})
after(() => t.close())

const idsOf = (body: any) => body.results.map((q: any) => q.id)
const sorted = (list: number[]) => [...list].sort((a, b) => a - b)

describe('nearby', () => {
  test("questions of the caller's district, region or country, and no others", async () => {
    const body = await t.json('/api/questions/?nearby=1&page_size=100', auth.me)
    assert.deepEqual(sorted(idsOf(body)), sorted([ids.inDistrict, ids.inRegion, ids.inCountry]))
    assert.deepEqual(
      sorted(idsOf(await t.json('/api/questions/?nearby=true', auth.neighbour))),
      [ids.inOtherRegion],
      'another place, other questions',
    )
  })

  test('off values, no place, no sign-in', async () => {
    const all = (await t.json('/api/questions/?page_size=1', auth.me)).count
    assert.equal((await t.json('/api/questions/?nearby=0&page_size=1', auth.me)).count, all, 'nearby=0 filters nothing')
    assert.equal((await t.json('/api/questions/?nearby=1', auth.nowhere)).count, 0)
    assert.equal((await t.json('/api/questions/?nearby=1')).count, 0, 'an anonymous caller has no place')
    assert.deepEqual(await t.json('/api/questions/?nearby=1&count=1', auth.me), { count: 3 })
  })

  test('combines with other filters', async () => {
    assert.deepEqual(idsOf(await t.json(`/api/questions/?nearby=1&id=${ids.inRegion}`, auth.me)), [ids.inRegion])
    assert.deepEqual(idsOf(await t.json(`/api/questions/?nearby=1&id=${ids.elsewhere}`, auth.me)), [])
  })
})

describe('my_history', () => {
  test('the questions the caller answered, the latest answer first, skips and private answers included', async () => {
    const body = await t.json('/api/questions/?my_history=1', auth.me)
    assert.deepEqual(idsOf(body), [ids.first, ids.third, ids.second])
    assert.equal(body.results[0].my_vote[0].value, 2)
    assert.equal(body.results[1].my_vote[0].skipped, true)
    assert.equal(body.results[2].my_vote[0].object_id, ids.left, 'a choice answer names the choice')
  })

  test('differs from answered_by, which keeps the usual order; ordering overrides the history order', async () => {
    const answered = idsOf(await t.json(`/api/questions/?answered_by=${ids.me}`, auth.me))
    assert.deepEqual(sorted(answered), sorted([ids.first, ids.second, ids.third]))
    assert.deepEqual(
      answered,
      [ids.notMine, ids.third, ids.second, ids.first].filter((id) => answered.includes(id)),
      'newest question first',
    )
    assert.deepEqual(idsOf(await t.json('/api/questions/?my_history=1&ordering=question', auth.me)), [ids.first, ids.third, ids.second])
    assert.deepEqual(idsOf(await t.json('/api/questions/?my_history=1&ordering=answered_at', auth.me)), [ids.second, ids.third, ids.first])
  })

  test('pages keep the order; nobody signed in has no history', async () => {
    const first = await t.json('/api/questions/?my_history=1&page_size=2', auth.me)
    const second = await t.json('/api/questions/?my_history=1&page_size=2&page=2', auth.me)
    assert.deepEqual([...idsOf(first), ...idsOf(second)], [ids.first, ids.third, ids.second])
    assert.equal((await t.json('/api/questions/?my_history=1')).count, 0)
    assert.equal((await t.json('/api/questions/?my_history=1', auth.nowhere)).count, 0)
  })
})

describe('friends_answers', () => {
  const url = (id: number) => `/api/questions/${id}/friends_answers/`

  test("accepted friends' public answers, either side of the friendship; not pending friends, private answers or strangers", async () => {
    const likert = await t.json(url(ids.notMine), auth.me)
    assert.equal(likert.count, 1)
    const [answer] = likert.results
    assert.deepEqual(
      [answer.kind, answer.object_id, answer.value, answer.skipped, answer.user.id],
      ['likert', ids.notMine, 5, false, ids.friend],
    )
    assert.match(answer.modified_at, TIMESTAMP)
    assert.equal(typeof answer.user.username, 'string')
    assert.equal(answer.user.follow, undefined, 'the reduced user')
    assert.equal(answer.user.country_info, undefined)

    const choices = await t.json(url(ids.second), auth.me)
    assert.deepEqual(
      choices.results.map((a: any) => [a.user.id, a.kind, a.object_id]),
      [
        [ids.friendOfMine, 'choice', ids.right],
        [ids.friend, 'choice', ids.left],
      ],
      'newest first',
    )
  })

  test('friendship goes both ways', async () => {
    const seenByFriend = await t.json(url(ids.second), auth.friendOfMine)
    assert.deepEqual(
      seenByFriend.results.map((a: any) => a.user.id),
      [ids.me],
    )
    assert.equal((await t.json(url(ids.third), auth.friendOfMine)).count, 0, 'my private answer is not shown to friends')
  })

  test('signed-in only; unknown or hidden questions are 404', async () => {
    assert.equal((await t.get(url(ids.notMine))).statusCode, 403)
    assert.equal((await t.get(url(99999999), auth.me)).statusCode, 404)
    assert.equal((await t.get(url(ids.draftInDistrict), auth.me)).statusCode, 404)
  })
})

test('filters keep a page at a small number of statements', async () => {
  for (const query of ['nearby=1', 'my_history=1']) {
    const response = await t.get(`/api/questions/?${query}&page_size=100`, auth.me)
    assert.ok(Number(response.headers['x-query-count']) <= 20, `${query}: ${response.headers['x-query-count']}`)
  }
  const response = await t.get(`/api/questions/${ids.second}/friends_answers/?page_size=100`, auth.me)
  assert.ok(Number(response.headers['x-query-count']) <= 12, `friends_answers: ${response.headers['x-query-count']}`)
})
