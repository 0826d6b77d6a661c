import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertTag, insertUser } from '../helpers/fixtures.ts'
import { assertFullUserShape, assertStatistics, TIMESTAMP } from '../helpers/shapes.ts'
import { assertStoredEqualsRecomputed } from './stored-counters.ts'

let t: TestApp
let token = ''
let strangerToken = ''
const ids: Record<string, number> = {}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  const author = await insertUser(db, { username: 'asker' })
  const stranger = await insertUser(db)
  ids.author = author.id
  token = await t.tokenFor(author.id)
  strangerToken = await t.tokenFor(stranger.id)
  ids.democracy = (await insertTag(db, 'Democracy test')).id
  ids.economy = (await insertTag(db, 'Economy test')).id
  ids.group = (await insertGroup(db, 'Open Forum')).id
  const closed = await insertGroup(db, 'Closed Circle')
  ids.closed = closed.id
  await db.updateTable('groups').set({ join_policy: 'invite' }).where('id', '=', closed.id).execute()
  ids.area = (await db.selectFrom('areas').select('id').orderBy('id').executeTakeFirstOrThrow()).id
  ids.collection = (
    await db.insertInto('question_collections').values({ user_id: author.id, name: 'My picks' }).returning('id').executeTakeFirstOrThrow()
  ).id
  ids.othersCollection = (
    await db
      .insertInto('question_collections')
      .values({ user_id: stranger.id, name: 'Not yours' })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  const existing = await db
    .insertInto('questions')
    .values({ user_id: stranger.id, question: 'Seed', slug: 'x' })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db
    .insertInto('question_collection_items')
    .values({ parent_id: ids.collection, type: 'Q', question_id: existing.id, order: 0 })
    .execute()
  await db.updateTable('question_collections').set({ question_count: 1, item_count: 1 }).where('id', '=', ids.collection).execute()
  await db.updateTable('users').set({ count_questions: 1 }).where('id', '=', stranger.id).execute()
})
after(() => t.close())

const create = (body: unknown, as = token) => t.send('POST', '/api/questions/', body, as)

describe('POST /api/questions/ (spec 4.2)', () => {
  test('the full body answers 201 with the question in its full form', async () => {
    const response = await create({
      question: 'Should every town have a public library?',
      description: 'Libraries and reading',
      tags: [{ tag: { id: ids.democracy } }, { tag: { id: ids.economy } }],
      choices: [{ text: 'Yes' }, { text: 'No' }, { text: 'Only large towns' }],
      collections: [{ parent: { id: ids.collection } }],
      ogImage: null,
      group: ids.group,
      geo: ids.area,
      links: [{ link: 'https://example.org/libraries', title: 'Library facts' }, { link: 'http://example.com/' }],
    })
    assert.equal(response.statusCode, 201, response.body)
    const q = response.json()
    assert.equal(response.headers.location, q.url)
    assert.equal(q.question, 'Should every town have a public library?')
    assert.equal(q.slug, 'should-every-town-have-a-public-library')
    assert.equal(q.subtype, 'mcq')
    assert.equal(q.description, 'Libraries and reading')
    assert.deepEqual(
      q.choices.map((c: any) => [c.text, c.store_number]),
      [
        ['Yes', 0],
        ['No', 1],
        ['Only large towns', 2],
      ],
    )
    for (const choice of q.choices) assertStatistics(choice, 'direct')
    assert.deepEqual(
      q.tags.map((qt: any) => qt.tag.id),
      [ids.democracy, ids.economy],
    )
    assert.equal(q.topic, ids.democracy, 'the first tag is the topic')
    assert.equal(q.topic_info.id, ids.democracy)
    assert.equal(q.group, ids.group)
    assert.equal(q.group_name, 'Open Forum')
    assert.equal(q.geo, ids.area)
    assert.equal(q.geo_info.id, ids.area)
    assert.deepEqual(
      q.links.map((l: any) => [l.link, l.title]),
      [
        ['https://example.org/libraries', 'Library facts'],
        ['http://example.com/', ''],
      ],
    )
    assert.equal(q.publish, true)
    assert.equal(q.ogImage, null)
    assert.deepEqual([q.start_at, q.end_at], [null, null])
    assert.match(q.created_at, TIMESTAMP)
    assertFullUserShape(q.user)
    assert.equal(q.user.id, ids.author)
    assert.deepEqual(q.my_vote, [])

    const db = t.database.db
    const connection = await db.selectFrom('group_question_connections').selectAll().where('question_id', '=', q.id).execute()
    assert.deepEqual(
      connection.map((c) => [c.group_id, c.active]),
      [[ids.group, true]],
    )
    assert.deepEqual(
      (await t.json(`/api/questions/?group=${ids.group}`)).results.map((r: any) => r.id),
      [q.id],
      'the group filter finds it',
    )
    const items = await db
      .selectFrom('question_collection_items')
      .select(['question_id', 'order', 'type'])
      .where('parent_id', '=', ids.collection)
      .orderBy('order')
      .execute()
    assert.deepEqual(items.at(-1), { question_id: q.id, order: 1, type: 'Q' }, 'added at the end of the collection')
    assert.deepEqual((await t.json(`/api/questions/?in_collections__parent=${ids.collection}`)).count, 2)
    await assertStoredEqualsRecomputed(db)
  })

  test('the old web app body: tag ids as strings, topic, group as a string', async () => {
    const response = await create({
      question: 'Is voting at sixteen a good idea?',
      tags: [{ tag: { id: String(ids.economy) } }],
      topic: ids.democracy,
      group: String(ids.group),
    })
    assert.equal(response.statusCode, 201, response.body)
    const q = response.json()
    assert.equal(q.subtype, 'likert')
    assert.deepEqual(q.choices, [])
    assert.equal(q.topic, ids.democracy, 'an explicit topic is the topic')
    assert.deepEqual(
      q.tags.map((qt: any) => qt.tag.id),
      [ids.democracy, ids.economy],
      'the topic is tag position 0',
    )
    assert.equal(q.group, ids.group)
    await assertStoredEqualsRecomputed(t.database.db)
  })

  test('the smallest body, and the counters of the author, tags and area move with it', async () => {
    const before = await t.json(`/api/users/${ids.author}/`)
    const tagBefore = await t.json(`/api/tags/${ids.economy}/`)
    const areaBefore = await t.json(`/api/geos/${ids.area}/`)
    const response = await create({ question: '  Trimmed title  ', tags: [{ tag: { id: ids.economy } }], geo: ids.area })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().question, 'Trimmed title')
    assert.equal((await t.json(`/api/users/${ids.author}/`)).count_questions, before.count_questions + 1)
    assert.equal((await t.json(`/api/tags/${ids.economy}/`)).questions_count, tagBefore.questions_count + 1)
    assert.equal((await t.json(`/api/geos/${ids.area}/`)).question_count, areaBefore.question_count + 1)
    await assertStoredEqualsRecomputed(t.database.db)
  })

  test('form-encoded bodies work for the flat fields', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/questions/',
      payload: `question=From+a+form&group=${ids.group}&publish=0`,
      headers: { authorization: `Token ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().publish, false)
    assert.equal(response.json().group, ids.group)
  })

  test('slugs are unique: -2, -3 on repeated titles; non-Latin letters are transliterated or dropped', async () => {
    const slugs = []
    for (let i = 0; i < 3; i++) slugs.push((await create({ question: 'Café culture: good or bad?' })).json().slug)
    assert.deepEqual(slugs, ['cafe-culture-good-or-bad', 'cafe-culture-good-or-bad-2', 'cafe-culture-good-or-bad-3'])
    assert.equal((await create({ question: 'Голосование?' })).json().slug.startsWith('question'), true)
  })

  test('concurrent questions with one title each get their own slug', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => create({ question: 'Same title at the same time' })))
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      Array(6).fill(201),
    )
    const slugs = responses.map((r) => r.json().slug).sort()
    assert.equal(new Set(slugs).size, 6)
    assert.ok(slugs.every((slug: string) => /^same-title-at-the-same-time(-\d+)?$/.test(slug)))
  })

  test('publish, the voting window and a periodic interval are stored', async () => {
    const response = await create({
      question: 'A window',
      publish: false,
      start_at: '2030-01-01T10:00:00Z',
      end_at: '2030-02-01',
      perodic_repeat_interval: 86400,
    })
    assert.equal(response.statusCode, 201, response.body)
    const q = response.json()
    assert.deepEqual(
      [q.publish, q.start_at, q.end_at, q.perodic_repeat_interval],
      [false, '2030-01-01T10:00:00.000Z', '2030-02-01T00:00:00.000Z', 86400],
    )
    assert.equal((await t.get(`/api/questions/${q.id}/`)).statusCode, 404, 'unpublished questions are drafts')
  })
})

describe('refusals change nothing', () => {
  const count = async () =>
    Number(
      (
        await t.database.db
          .selectFrom('questions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  test('without credentials: 403', async () => {
    assert.equal((await create({ question: 'Anonymous?' }, '')).statusCode, 403)
  })

  for (const [label, body, expected] of [
    ['no title', {}, { question: ['This field is required.'] }],
    ['a blank title', { question: '   ' }, { question: ['This field may not be blank.'] }],
    ['an unknown tag', { question: 'Q', tags: [{ tag: { id: 99999999 } }] }, { tags: ['Invalid pk "99999999" - object does not exist.'] }],
    ['an unknown topic', { question: 'Q', topic: 99999998 }, { topic: ['Invalid pk "99999998" - object does not exist.'] }],
    ['an unknown group', { question: 'Q', group: 99999999 }, { group: ['Invalid pk "99999999" - object does not exist.'] }],
    ['an unknown area', { question: 'Q', geo: 99999999 }, { geo: ['Invalid pk "99999999" - object does not exist.'] }],
    [
      'an unknown collection',
      { question: 'Q', collections: [{ parent: { id: 99999999 } }] },
      { collections: ['Invalid pk "99999999" - object does not exist.'] },
    ],
    [
      'a single choice',
      { question: 'Q', choices: [{ text: 'Only' }] },
      { choices: ['A multiple-choice question needs at least two choices.'] },
    ],
    [
      'an end before the start',
      { question: 'Q', start_at: '2030-01-02T00:00:00Z', end_at: '2030-01-01T00:00:00Z' },
      { end_at: ['The end of voting must be after its start.'] },
    ],
    [
      'a bad date',
      { question: 'Q', start_at: 'tomorrow' },
      { start_at: ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'] },
    ],
    ['a javascript: link', { question: 'Q', links: [{ link: 'javascript:alert(1)' }] }, { links: ['Enter a valid URL.'] }],
    ['an id beyond the column', { question: 'Q', geo: 99999999999 }, null],
    ['a huge title', { question: 'x'.repeat(5000) }, { question: ['Ensure this field has no more than 500 characters.'] }],
  ] as const) {
    test(`${label}: 400 naming the field`, async () => {
      const before = await count()
      const response = await create(body)
      assert.equal(response.statusCode, 400, response.body)
      if (expected) assert.deepEqual(response.json(), expected)
      else assert.ok(Object.keys(response.json()).some((key) => key.startsWith('geo')))
      assert.equal(await count(), before)
    })
  }

  test('someone else’s collection is not there for you; nothing of the question stays', async () => {
    const before = await count()
    const items = await t.database.db.selectFrom('question_collection_items').select('id').execute()
    const response = await create({ question: 'Sneaky', collections: [{ parent: { id: ids.collection } }] }, strangerToken)
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { collections: [`Invalid pk "${ids.collection}" - object does not exist.`] })
    assert.equal(await count(), before)
    assert.equal((await t.database.db.selectFrom('question_collection_items').select('id').execute()).length, items.length)
  })

  test('several problems at once are all named', async () => {
    const response = await create({ question: 'Q', tags: [{ tag: { id: 99999999 } }], geo: 99999999, group: ids.closed })
    assert.equal(response.statusCode, 400)
    assert.deepEqual(Object.keys(response.json()).sort(), ['geo', 'group', 'tags'])
    assert.deepEqual(response.json().group, ['Only members of this group can ask questions in it.'])
  })

  test('a closed group takes questions from its members', async () => {
    const db = t.database.db
    await db.insertInto('group_memberships').values({ group_id: ids.closed, user_id: ids.author }).execute()
    // A membership made directly, with the counters a join through the API would move.
    await db
      .updateTable('groups')
      .set((eb) => ({ member_count: eb('member_count', '+', 1) }))
      .where('id', '=', ids.closed)
      .execute()
    await db
      .updateTable('users')
      .set((eb) => ({ count_group_memberships: eb('count_group_memberships', '+', 1) }))
      .where('id', '=', ids.author)
      .execute()
    assert.equal((await create({ question: 'Members only', group: ids.closed })).statusCode, 201)
  })

  test('malformed JSON: 400', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/questions/',
      payload: '{"question":',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
    })
    assert.equal(response.statusCode, 400)
    assert.match(response.json().detail, /^JSON parse error/)
  })
})

test('after every operation above, stored counters equal the recompute', async () => {
  await assertStoredEqualsRecomputed(t.database.db)
})
