import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'
import { assertAreaShape, assertFullUserShape, assertStatistics, TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
const ids: Record<string, number> = {}
let authorName = ''

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  const author = await insertUser(db, { username: 'quokka_author' })
  authorName = author.username
  const other = await insertUser(db)
  const tag = await insertTag(db, 'Waterways')
  const group = await insertGroup(db, 'Canal Friends')
  ids.author = author.id
  ids.other = other.id
  ids.tag = tag.id
  ids.group = group.id
  ids.zebra = (
    await insertQuestion(db, author.id, {
      question: 'Zebra crossings should have brighter paint',
      description: 'Road safety near schools',
      topic_id: tag.id,
    })
  ).id
  ids.quokka = (await insertQuestion(db, author.id, { question: 'Quokkas belong in every city park', group_id: group.id })).id
  ids.canal = (await insertQuestion(db, other.id, { question: 'Canals deserve more public funding' })).id
  ids.draft = (await insertQuestion(db, author.id, { question: 'Draft about lighthouses', publish: false })).id
  await db.insertInto('question_tags').values({ question_id: ids.zebra, tag_id: tag.id, position: 0 }).execute()
  await db
    .insertInto('group_question_connections')
    .values([
      { group_id: group.id, question_id: ids.quokka, active: true },
      { group_id: group.id, question_id: ids.canal, active: false },
    ])
    .execute()
  await db.insertInto('question_votes').values({ question_id: ids.canal, user_id: other.id, value: 4, importance: 5 }).execute()
  await db.insertInto('question_votes').values({ question_id: ids.zebra, user_id: other.id, value: 2, private: true }).execute()
})
after(() => t.close())

const idsOf = (body: any) => body.results.map((q: any) => q.id).sort((a: number, b: number) => a - b)

describe('the full question (spec 2.5)', () => {
  test('every field with its type', async () => {
    const body = await t.json('/api/questions/?page_size=100')
    assert.ok(body.results.length > 5)
    for (const q of body.results) {
      assert.equal(typeof q.id, 'number')
      assert.equal(q.url, `http://localhost:80/api/questions/${q.id}/`)
      for (const field of ['question', 'slug', 'description', 'subtype']) assert.equal(typeof q[field], 'string', field)
      for (const field of ['my_vote', 'their_vote', 'my_importance', 'tags', 'choices', 'links']) assert.ok(Array.isArray(q[field]), field)
      assert.ok('perodic_repeat_interval' in q && 'ogImage' in q)
      assert.ok(q.topic === null || typeof q.topic === 'number')
      if (q.topic !== null)
        assert.deepEqual(Object.keys(q.topic_info).sort(), ['followers_count', 'id', 'questions_count', 'text', 'votes_count'])
      for (const field of ['group', 'geo']) assert.ok(q[field] === null || typeof q[field] === 'number', field)
      for (const field of ['group_url', 'geo_url', 'group_name']) assert.ok(q[field] === null || typeof q[field] === 'string', field)
      if (q.geo !== null) assertAreaShape(q.geo_info)
      for (const field of ['start_at', 'end_at']) assert.ok(q[field] === null || TIMESTAMP.test(q[field]), field)
      assert.equal(typeof q.publish, 'boolean')
      for (const field of ['count_comments', 'count_comments_suggestion', 'count_comments_reason', 'count_comments_info'])
        assert.ok(Number.isInteger(q[field]), field)
      assertStatistics(q, 'direct')
      assertStatistics(q, 'liquid')
      assert.equal(typeof q.polarisation, 'number')
      assert.match(q.created_at, TIMESTAMP)
      assert.match(q.modified_at, TIMESTAMP)
      assertFullUserShape(q.user)
      for (const qt of q.tags) {
        assert.deepEqual(Object.keys(qt.tag).sort(), ['followers_count', 'id', 'questions_count', 'text', 'votes_count'])
        assertStatistics(qt, 'direct')
        assert.equal(qt.liquid_vote_count, undefined, 'question-tags carry only the direct family')
      }
      q.choices.forEach((choice: any, index: number) => {
        assert.equal(choice.store_number, index)
        assert.equal(choice.url, `http://localhost:80/api/question_choices/${choice.id}/`)
        assertStatistics(choice, 'direct')
        assertStatistics(choice, 'liquid')
        assert.equal(typeof choice.polarisation, 'number')
      })
    }
  })

  test('mcq questions list their choices in order; likert ones have none', async () => {
    const body = await t.json('/api/questions/?subtype=mcq&page_size=100')
    assert.ok(body.results.length > 0, 'the tiny seed has choice questions')
    for (const q of body.results) assert.ok(q.choices.length >= 2)
    for (const q of (await t.json('/api/questions/?subtype=likert')).results) assert.deepEqual(q.choices, [])
  })

  test('the detail equals the listing item', async () => {
    const listed = (await t.json(`/api/questions/?id=${ids.zebra}`)).results[0]
    assert.deepEqual(await t.json(`/api/questions/${ids.zebra}/`), listed)
    assert.equal(listed.topic, ids.tag)
    assert.equal(listed.topic_info.text, 'Waterways')
    assert.equal(listed.tags[0].tag.id, ids.tag)
  })

  test('group fields name the group', async () => {
    const q = await t.json(`/api/questions/${ids.quokka}/`)
    assert.equal(q.group, ids.group)
    assert.equal(q.group_name, 'Canal Friends')
    assert.equal(q.group_url, `http://localhost:80/api/groups/${ids.group}/`)
  })
})

describe('filters of spec 4.2', () => {
  test('id', async () => {
    assert.deepEqual(idsOf(await t.json(`/api/questions/?id=${ids.canal}`)), [ids.canal])
  })

  test('search: full text over title and description, every word must match', async () => {
    assert.deepEqual(idsOf(await t.json('/api/questions/?search=zebra')), [ids.zebra])
    assert.deepEqual(idsOf(await t.json('/api/questions/?search=schools')), [ids.zebra], 'the description is searched')
    assert.deepEqual(idsOf(await t.json('/api/questions/?search=zebra%20quokka')), [])
    assert.deepEqual(idsOf(await t.json('/api/questions/?search=crossing')), [ids.zebra], 'stems match')
  })

  test('exact_question: any word of the value', async () => {
    assert.deepEqual(
      idsOf(await t.json('/api/questions/?exact_question=zebra%20quokkas')),
      [ids.zebra, ids.quokka].sort((a, b) => a - b),
    )
    assert.deepEqual(idsOf(await t.json('/api/questions/?exact_question=quokka')), [], 'whole words only')
  })

  test('user__username: questions asked by that user (drafts only for their author)', async () => {
    assert.deepEqual(idsOf(await t.json(`/api/questions/?user__username=${authorName}`)), [ids.zebra, ids.quokka])
    const token = await t.tokenFor(ids.author)
    const own = await t.json(`/api/questions/?user__username=${authorName}`, { authorization: `Token ${token}` })
    assert.deepEqual(idsOf(own), [ids.zebra, ids.quokka, ids.draft])
  })

  test('group, in_group_all, in_group_disabled', async () => {
    assert.deepEqual(idsOf(await t.json(`/api/questions/?group=${ids.group}`)), [ids.quokka])
    assert.deepEqual(idsOf(await t.json(`/api/questions/?in_group_all=${ids.group}`)), [ids.quokka, ids.canal])
    assert.deepEqual(idsOf(await t.json(`/api/questions/?in_group_disabled=${ids.group}`)), [ids.canal])
  })

  test('tags__tag (any tag of the question) and topic (its topic tag)', async () => {
    assert.deepEqual(idsOf(await t.json(`/api/questions/?tags__tag=${ids.tag}`)), [ids.zebra])
    assert.deepEqual(idsOf(await t.json(`/api/questions/?topic=${ids.tag}`)), [ids.zebra])
    await t.database.db.insertInto('question_tags').values({ question_id: ids.canal, tag_id: ids.tag, position: 1 }).execute()
    assert.deepEqual(idsOf(await t.json(`/api/questions/?tags__tag=${ids.tag}`)), [ids.zebra, ids.canal])
    assert.deepEqual(idsOf(await t.json(`/api/questions/?topic=${ids.tag}`)), [ids.zebra], 'a secondary tag is not the topic')
    await t.database.db.deleteFrom('question_tags').where('question_id', '=', ids.canal).where('tag_id', '=', ids.tag).execute()
  })

  test('count answers the number only', async () => {
    const response = await t.get(`/api/questions/?count=1&in_group_all=${ids.group}`)
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { count: 2 })
    const all = await t.json('/api/questions/')
    assert.deepEqual(await t.json('/api/questions/?count=true'), { count: all.count })
  })

  test('answered_by fills their_vote with that user’s public answers; privately answered questions are theirs to see', async () => {
    const body = await t.json(`/api/questions/?answered_by=${ids.other}`)
    assert.deepEqual(idsOf(body), [ids.canal], 'a private answer does not show that its author answered')
    assert.equal(body.results[0].their_vote.length, 1)
    assert.equal(body.results[0].their_vote[0].value, 4)
    const own = await t.json(`/api/questions/?answered_by=${ids.other}`, { authorization: `Token ${await t.tokenFor(ids.other)}` })
    assert.deepEqual(idsOf(own), [ids.zebra, ids.canal])
    const staffId = (await insertUser(t.database.db, { is_staff: true })).id
    const staff = await t.json(`/api/questions/?answered_by=${ids.other}`, { authorization: `Token ${await t.tokenFor(staffId)}` })
    assert.deepEqual(idsOf(staff), [ids.zebra, ids.canal])
  })

  test('votes__user__username: the same by username, telling voters apart', async () => {
    const otherName = (await t.database.db.selectFrom('users').select('username').where('id', '=', ids.other).executeTakeFirstOrThrow())
      .username
    const body = await t.json(`/api/questions/?votes__user__username=${otherName}`)
    assert.deepEqual(idsOf(body), [ids.canal])
    assert.equal(body.results[0].their_vote[0].value, 4)
    assert.deepEqual(idsOf(await t.json(`/api/questions/?votes__user__username=${authorName}`)), [], 'the author asked but did not answer')
    assert.deepEqual(idsOf(await t.json('/api/questions/?votes__user__username=nobody_by_this_name')), [])
    const own = await t.json(`/api/questions/?votes__user__username=${otherName}`, {
      authorization: `Token ${await t.tokenFor(ids.other)}`,
    })
    assert.deepEqual(idsOf(own), [ids.zebra, ids.canal])
  })

  test('unpublished questions are hidden from everyone but their author', async () => {
    assert.equal((await t.get(`/api/questions/${ids.draft}/`)).statusCode, 404)
    const token = await t.tokenFor(ids.author)
    assert.equal((await t.get(`/api/questions/${ids.draft}/`, { authorization: `Token ${token}` })).statusCode, 200)
  })
})

describe('the caller’s own answers', () => {
  test('my_vote and my_importance are filled for the caller, empty for anyone else', async () => {
    const token = await t.tokenFor(ids.other)
    const mine = await t.json(`/api/questions/${ids.canal}/`, { authorization: `Token ${token}` })
    assert.equal(mine.my_vote.length, 1)
    assert.deepEqual(
      { value: mine.my_vote[0].value, object_id: mine.my_vote[0].object_id, private: mine.my_vote[0].private },
      { value: 4, object_id: ids.canal, private: false },
    )
    assert.match(mine.my_vote[0].modified_at, TIMESTAMP)
    assert.deepEqual(
      mine.my_importance.map((i: any) => i.value),
      [5],
    )
    const anonymous = await t.json(`/api/questions/${ids.canal}/`)
    assert.deepEqual(anonymous.my_vote, [])
    assert.deepEqual(anonymous.my_importance, [])
    const privateOwn = await t.json(`/api/questions/${ids.zebra}/`, { authorization: `Token ${token}` })
    assert.equal(privateOwn.my_vote[0].private, true, 'the caller sees their own private answer')
  })
})

describe('ordering', () => {
  test('by statistics and by creation, stable across pages', async () => {
    // Ordering by a figure sorts on the published figures, the ones shown.
    const body = await t.json('/api/questions/?ordering=-direct_vote_count&page_size=100')
    const counts = body.results.map((q: any) => q.direct_vote_count)
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => b - a),
    )
    const consensus = (await t.json('/api/questions/?ordering=liquid_consensus&page_size=100')).results.map((q: any) => q.liquid_consensus)
    assert.deepEqual(
      consensus,
      [...consensus].sort((a, b) => a - b),
    )
    const byTitle = (await t.json('/api/questions/?ordering=question&page_size=100')).results.map((q: any) => q.id)
    const paged = [
      ...(await t.json('/api/questions/?ordering=question&page_size=3')).results,
      ...(await t.json('/api/questions/?ordering=question&page_size=3&page=2')).results,
    ].map((q: any) => q.id)
    assert.deepEqual(paged, byTitle.slice(0, 6))
  })
})

describe('no query per row', () => {
  test('a page costs a small bound of statements whatever its size', async () => {
    // Loaders skip a statement when a page has nothing for them, so the count varies a little with
    // content; it never grows with the number of rows.
    const token = await t.tokenFor(ids.other)
    for (const headers of [{}, { authorization: `Token ${token}` }] as Record<string, string>[]) {
      for (const size of [1, 10, 50, 100]) {
        const response = await t.get(`/api/questions/?page_size=${size}`, headers)
        assert.equal(response.statusCode, 200)
        assert.equal(response.json().results.length, Math.min(size, response.json().count))
        assert.ok(Number(response.headers['x-query-count']) <= 20, `a page of ${size} took ${response.headers['x-query-count']} statements`)
      }
    }
  })
})
