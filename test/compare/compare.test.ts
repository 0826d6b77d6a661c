import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'

/**
 * A hand-computed pair. A and B answered:
 *   q1 1|5 (4)  q2 2|3 (1)  q3 3|3 (0)  q4 5|2 (3)  q5 4|2 (2)  m1 x1|x1 (0)  m2 y1|y2 (4)  draft 2|2 (0, not shown)
 *   q6 A private 4 | 4 (0: only when A looks)  q8 1 | B private 1 (0: only when B looks)  q7 3 | B skipped (never)
 * Seen by anyone: d = [3,1,1,1,2], 8 questions, Σ i·d_i = 14, difference 100·14/32 = 43.75.
 * Seen by A (or B): d = [4,1,1,1,2], 9 questions, difference 100·14/36 = 38.888…
 * Tags: T1 on q1, q2, m2 -> [0,1,0,0,2]; T2 on q3 -> [1,0,0,0,0]; T3 on q7 only (not common) -> absent.
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const q: Record<string, number> = {}
const choice: Record<string, number> = {}
const tags: Record<string, { id: number; text: string }> = {}
const auth = (name: string) => ({ authorization: `Token ${people[name].token}` })
const extras: number[] = []

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['a', 'b', 'c', 'd', 'author', 'gone']) {
    const row = await insertUser(db, { username: `cmp_${name}` })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  await db.updateTable('users').set({ is_active: false }).where('id', '=', people.gone.id).execute()
  for (let i = 0; i < 17; i++) extras.push((await insertUser(db)).id)
  for (const name of ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8']) q[name] = (await insertQuestion(db, people.author.id)).id
  for (const name of ['m1', 'm2']) q[name] = (await insertQuestion(db, people.author.id, { subtype: 'mcq' })).id
  q.draft = (await insertQuestion(db, people.author.id, { publish: false })).id
  for (const [name, question, n] of [
    ['x1', 'm1', 1],
    ['x2', 'm1', 2],
    ['y1', 'm2', 1],
    ['y2', 'm2', 2],
  ] as const) {
    choice[name] = (
      await db
        .insertInto('question_choices')
        .values({ question_id: q[question], text: `Choice ${name}`, store_number: n })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  }
  const likert = async (who: string, question: string, value: number | null, isPrivate = false) =>
    db
      .insertInto('question_votes')
      .values({ user_id: people[who].id, question_id: q[question], value, skipped: value === null, private: isPrivate })
      .execute()
  const pick = async (who: string, question: string, picked: string) =>
    db
      .insertInto('question_choice_votes')
      .values({ user_id: people[who].id, question_id: q[question], choice_id: choice[picked], value: 5 })
      .execute()
  const pairs: [string, number, number][] = [
    ['q1', 1, 5],
    ['q2', 2, 3],
    ['q3', 3, 3],
    ['q4', 5, 2],
    ['q5', 4, 2],
    ['draft', 2, 2],
  ]
  for (const [question, a, b] of pairs) {
    await likert('a', question, a)
    await likert('b', question, b)
  }
  await likert('a', 'q6', 4, true)
  await likert('b', 'q6', 4)
  await likert('a', 'q7', 3)
  await likert('b', 'q7', null)
  await likert('a', 'q8', 1)
  await likert('b', 'q8', 1, true)
  await pick('a', 'm1', 'x1')
  await pick('b', 'm1', 'x1')
  await pick('a', 'm2', 'y1')
  await pick('b', 'm2', 'y2')
  // C agrees with A on three questions: too few for a quick percent.
  for (const question of ['q1', 'q2', 'q3']) {
    const value = pairs.find(([name]) => name === question)![1]
    await likert('c', question, value)
  }
  for (const name of ['T1', 'T2', 'T3']) tags[name] = await insertTag(db, `cmp-${name}-${process.pid}`)
  for (const [tag, question] of [
    ['T1', 'q1'],
    ['T1', 'q2'],
    ['T1', 'm2'],
    ['T2', 'q3'],
    ['T3', 'q7'],
  ]) {
    await db.insertInto('question_tags').values({ tag_id: tags[tag].id, question_id: q[question] }).execute()
  }
})
after(() => t.close())

const side = (value: number | null, picked: string | null = null) => ({
  value,
  choice: picked === null ? null : choice[picked],
  choice_text: picked === null ? null : `Choice ${picked}`,
})

describe('compare_users', () => {
  test('anonymous: public answers only, distances, percent, topics, most separating and agreeing', async () => {
    const response = await t.get(`/api/compare_users/?usera=${people.a.id}&userb=${people.b.id}`)
    assert.equal(response.statusCode, 200, response.body)
    const body = response.json()
    assert.equal(body.usera, people.a.id)
    assert.equal(body.userb, people.b.id)
    assert.deepEqual(body.difference_distances, [3, 1, 1, 1, 2])
    assert.equal(body.questions_counted, 8)
    assert.equal(body.difference_percent, 43.75)
    assert.deepEqual(body.topic_diffs, {
      [tags.T1.text]: { id: tags.T1.id, diffs: [0, 1, 0, 0, 2] },
      [tags.T2.text]: { id: tags.T2.id, diffs: [1, 0, 0, 0, 0] },
    })
    assert.deepEqual(
      body.most_different.map((item: { question: number; distance: number }) => [item.question, item.distance]),
      [
        [q.q1, 4],
        [q.m2, 4],
        [q.q4, 3],
        [q.q5, 2],
      ],
    )
    assert.deepEqual(
      body.most_agreed.map((item: { question: number; distance: number }) => [item.question, item.distance]),
      [
        [q.q3, 0],
        [q.m1, 0],
        [q.q2, 1],
      ],
      'the draft counts but is not shown',
    )
    const first = body.most_different[0]
    assert.equal(first.subtype, 'likert')
    assert.match(first.text, /^Question /)
    assert.deepEqual([first.usera, first.userb], [side(1), side(5)])
    const m2 = body.most_different[1]
    assert.deepEqual([m2.usera, m2.userb, m2.subtype], [side(null, 'y1'), side(null, 'y2'), 'mcq'])
    assert.ok(Number(response.headers['x-query-count']) <= 4, `took ${response.headers['x-query-count']} statements`)
  })

  test("each person's own private answers count when they look, nobody else's", async () => {
    for (const viewer of ['a', 'b']) {
      const body = await t.json(`/api/compare_users/?usera=${people.a.id}&userb=${people.b.id}`, auth(viewer))
      assert.deepEqual(body.difference_distances, [4, 1, 1, 1, 2], viewer)
      assert.equal(body.questions_counted, 9)
      assert.equal(body.difference_percent, 1400 / 36)
    }
    const stranger = await t.json(`/api/compare_users/?usera=${people.a.id}&userb=${people.b.id}`, auth('c'))
    assert.deepEqual(stranger.difference_distances, [3, 1, 1, 1, 2])
  })

  test('nothing in common: zeros, null percent, no topics', async () => {
    const body = await t.json(`/api/compare_users/?usera=${people.a.id}&userb=${people.d.id}`)
    assert.deepEqual(body, {
      usera: people.a.id,
      userb: people.d.id,
      questions_counted: 0,
      difference_percent: null,
      difference_distances: [0, 0, 0, 0, 0],
      topic_diffs: {},
      most_different: [],
      most_agreed: [],
    })
  })
})

describe('compare_users_quick', () => {
  test('the quick figures of one pair; null below five common questions', async () => {
    assert.deepEqual(await t.json(`/api/compare_users_quick/?usera=${people.a.id}&userb=${people.b.id}`), {
      usera: people.a.id,
      userb: people.b.id,
      difference_percent: 43.75,
      questions_counted: 8,
      difference_distances: [3, 1, 1, 1, 2],
    })
    const c = await t.json(`/api/compare_users_quick/?usera=${people.c.id}&userb=${people.a.id}`)
    assert.deepEqual([c.difference_percent, c.questions_counted, c.difference_distances], [null, 3, [3, 0, 0, 0, 0]])
  })
})

describe('compare_n_users_quick', () => {
  test('one person against several: figures per id, null below the minimum, zeros for nothing in common', async () => {
    const url = `/api/compare_n_users_quick/?usera=${people.a.id}&users=${people.b.id},${people.c.id},${people.d.id}`
    assert.deepEqual(await t.json(url), {
      results: {
        [people.b.id]: { difference_percent: 43.75, questions_counted: 8, difference_distances: [3, 1, 1, 1, 2] },
        [people.c.id]: { difference_percent: null, questions_counted: 3, difference_distances: [3, 0, 0, 0, 0] },
        [people.d.id]: { difference_percent: null, questions_counted: 0, difference_distances: [0, 0, 0, 0, 0] },
      },
    })
    const mine = await t.json(url, auth('a'))
    assert.equal(mine.results[people.b.id].difference_percent, 1400 / 36, "the caller's private answer counts for them")
  })

  test('usera in the list is left out; empty list, empty results', async () => {
    const body = await t.json(`/api/compare_n_users_quick/?usera=${people.a.id}&users=${people.a.id},${people.c.id},,${people.c.id}`)
    assert.deepEqual(Object.keys(body.results), [String(people.c.id)])
    assert.deepEqual(await t.json(`/api/compare_n_users_quick/?usera=${people.a.id}&users=`), { results: {} })
  })

  test('the same number of statements for 1, 3 or 20 people, anonymous or signed in', async () => {
    const lists = [[people.b.id], [people.b.id, people.c.id, people.d.id], [people.b.id, people.c.id, people.d.id, ...extras]]
    assert.deepEqual(
      lists.map((ids) => ids.length),
      [1, 3, 20],
    )
    for (const headers of [{}, auth('a')]) {
      const counts: number[] = []
      for (const ids of lists) {
        const response = await t.get(`/api/compare_n_users_quick/?usera=${people.a.id}&users=${ids.join(',')}`, headers)
        assert.equal(response.statusCode, 200, response.body)
        assert.equal(Object.keys(response.json().results).length, ids.length)
        counts.push(Number(response.headers['x-query-count']))
      }
      assert.equal(new Set(counts).size, 1, `statements: ${counts.join(', ')}`)
      // The people, the comparison; signed in also the token and the kept figures.
      assert.equal(counts[0], Object.keys(headers).length ? 4 : 2)
    }
  })
})

describe('bad input', () => {
  test('missing, malformed, the same person twice: 400 naming the field', async () => {
    const { a, b } = people
    const cases: [string, Record<string, string[]>][] = [
      [`/api/compare_users/?usera=${a.id}`, { userb: ['This field is required.'] }],
      [`/api/compare_users/?usera=abc&userb=${b.id}`, { usera: ['Enter a whole number.'] }],
      [`/api/compare_users/?usera=${a.id}&userb=99999999999`, { userb: ['Ensure this value is less than or equal to 2147483647.'] }],
      [`/api/compare_users/?usera=${a.id}&userb=${a.id}`, { userb: ['usera and userb must be different people.'] }],
      [`/api/compare_users_quick/?usera=${a.id}&userb=${a.id}`, { userb: ['usera and userb must be different people.'] }],
      [`/api/compare_n_users_quick/?usera=${a.id}`, { users: ['This field is required.'] }],
      [`/api/compare_n_users_quick/?usera=${a.id}&users=${b.id},abc`, { users: ['Enter a whole number.'] }],
      [`/api/compare_n_users_quick/?usera=${a.id}&users=${b.id},999999`, { users: ['Invalid pk "999999" - object does not exist.'] }],
      [
        `/api/compare_n_users_quick/?usera=${a.id}&users=${people.gone.id}`,
        { users: [`Invalid pk "${people.gone.id}" - object does not exist.`] },
      ],
      [
        `/api/compare_n_users_quick/?usera=${a.id}&users=${b.id},99999999999`,
        { users: ['Invalid pk "99999999999" - object does not exist.'] },
      ],
      [
        `/api/compare_n_users_quick/?usera=${a.id}&users=${Array.from({ length: 1001 }, (_, i) => 1_000_000 + i).join(',')}`,
        { users: ['Ensure this field has no more than 1000 elements.'] },
      ],
    ]
    for (const [url, answer] of cases) {
      const response = await t.get(url)
      assert.equal(response.statusCode, 400, url)
      assert.deepEqual(response.json(), answer, url)
    }
  })

  test('unknown or deactivated people: 404', async () => {
    for (const url of [
      `/api/compare_users/?usera=999999&userb=${people.b.id}`,
      `/api/compare_users/?usera=${people.a.id}&userb=${people.gone.id}`,
      `/api/compare_users_quick/?usera=${people.a.id}&userb=0`,
      `/api/compare_n_users_quick/?usera=999999&users=${people.b.id}`,
    ]) {
      const response = await t.get(url)
      assert.equal(response.statusCode, 404, url)
      assert.deepEqual(response.json(), { detail: 'Not found.' })
    }
  })
})
