import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { collection, inGroup, mcq } from '../next-question/support.ts'

/**
 * A questions page built anew (nothing kept in memory) costs a fixed number of statements whatever its size and
 * filters: the count, the rows, one statement for what the questions embed, and for a signed-in caller one for
 * their own fields. Tokens are kept (TOKEN_CACHE_ENTRIES), so a warmed token costs nothing.
 */

const queries = (response: LightMyRequestResponse) => Number(response.headers['x-query-count'])

let t: TestApp
const people: Record<string, { id: number; username: string; headers: Record<string, string> }> = {}
const q: Record<string, number> = {}
let choiceIds: number[] = []
let collectionId = 0
let groupId = 0

before(async () => {
  t = await createTestApp('tiny', { TOKEN_CACHE_ENTRIES: '1000' })
  const db = t.database.db
  const [area] = (await db.selectFrom('areas').select('id').orderBy('id').limit(1).execute()).map((row) => row.id)
  for (const name of ['me', 'author', 'other']) {
    const user = await insertUser(db, name === 'me' ? { country_id: area } : {})
    people[name] = { id: user.id, username: user.username, headers: { authorization: `Token ${await t.tokenFor(user.id)}` } }
  }
  const staff = await insertUser(db, { is_staff: true })
  people.staff = { id: staff.id, username: staff.username, headers: { authorization: `Token ${await t.tokenFor(staff.id)}` } }
  people.anyone = { id: 0, username: '', headers: {} }
  const author = people.author!.id
  q.open = (await insertQuestion(db, author, { question: 'Unkept quokka open', geo_id: area })).id
  q.privately = (await insertQuestion(db, author, { question: 'Unkept quokka privately' })).id
  q.draft = (await insertQuestion(db, author, { question: 'Unkept quokka draft', publish: false })).id
  const choice = await mcq(db, author, { question: 'Unkept quokka choice' })
  q.choice = choice.id
  choiceIds = choice.choiceIds
  groupId = (await insertGroup(db)).id
  await inGroup(db, groupId, [q.open, q.choice])
  collectionId = await collection(db, author, [
    { questionId: q.open, order: 1 },
    { questionId: q.privately, order: 2 },
  ])
  await db
    .insertInto('user_compares')
    .values({
      user_id: author,
      other_id: people.me!.id,
      questions_counted: 3,
      difference_percent: 25,
      difference_distances: [1, 1, 1, 0, 0],
    })
    .execute()
  const cast = async (who: string, url: string, body: object) => {
    const response = await t.send('POST', url, body, people[who]!.headers.authorization!.slice('Token '.length))
    assert.ok(response.statusCode === 201 || response.statusCode === 200, `${url}: ${response.body}`)
  }
  await cast('me', '/api/question_votes/', { object_id: q.open, value: 2, importance: 5 })
  await cast('me', '/api/question_votes/', { object_id: q.privately, value: 4, private: true })
  await cast('me', '/api/question_choice_votes/', { object_id: choiceIds[1], value: 5 })
  await cast('me', '/api/following_users/', { following: author })
  await cast('other', '/api/question_votes/', { object_id: q.open, value: 5 })
  await cast('other', '/api/question_votes/', { object_id: q.privately, value: 1, private: true })
  await cast('author', '/api/question_votes/', { object_id: q.open, value: 3 })
  await cast('author', '/api/question_votes/', { object_id: q.privately, value: 3, private: true })
  // Each token is looked up once, here; every later request finds it in memory.
  for (const who of Object.values(people)) await t.get('/api/questions/?page_size=1', who.headers)
})
after(() => t?.close())

/** GETs as `who` and checks the answer is 200. */
async function get(url: string, who: string): Promise<LightMyRequestResponse> {
  const response = await t.get(url, people[who]!.headers)
  assert.equal(response.statusCode, 200, `${who}: ${url}: ${response.body}`)
  return response
}

const byId = (results: any[], id: number): any => results.find((question) => question.id === id)

describe('a questions page built anew', () => {
  const callers = ['anyone', 'me', 'author', 'staff']
  const budget = (who: string) => (who === 'anyone' ? 3 : 4)

  test('count, rows, relations and own fields: the same statements for 2, 10, 50 and 100 questions', async () => {
    for (const who of callers) {
      const counts: number[] = []
      for (const size of [2, 10, 50, 100]) {
        const response = await get(`/api/questions/?page_size=${size}`, who)
        assert.equal(response.json().results.length, Math.min(size, response.json().count), `${who}, ${size}`)
        assert.ok(queries(response) <= budget(who), `${who}, page of ${size}: ${queries(response)} statements`)
        counts.push(queries(response))
      }
      assert.deepEqual(new Set(counts).size, 1, `${who}: ${counts}`)
    }
  })

  test('within the budget under every filter and ordering', async () => {
    const filters = [
      `answered_by=${people.other!.id}`,
      `answered_by=${people.me!.id}`,
      `votes__user__username=${people.other!.username}`,
      `votes__user__username=${people.me!.username}&ordering=-votes__created_at`,
      'votes__user__username=nobody-by-that-name',
      `user__username=${people.author!.username}`,
      `in_collections__parent=${collectionId}`,
      `group=${groupId}`,
      'nearby=1',
      'my_history=1',
      'my_history=1&ordering=-answered_at',
      'search=quokka',
      'ordering=-direct_vote_count',
      'ordering=-votes__created_at',
      'ordering=question',
      `answered_by=${people.other!.id}&search=quokka&ordering=-votes__created_at`,
      `votes__user__username=${people.other!.username}&user__username=${people.author!.username}&group=${groupId}`,
    ]
    for (const who of callers) {
      for (const filter of filters) {
        for (const size of [2, 10, 50]) {
          const url = `/api/questions/?${filter}&page_size=${size}`
          const response = await get(url, who)
          assert.ok(queries(response) <= budget(who), `${who}: ${url}: ${queries(response)} statements`)
        }
      }
    }
  })

  test('a question alone: its row, its relations, and the caller’s own fields', async () => {
    for (const who of callers) {
      for (const id of [q.open, q.choice, q.privately]) {
        const response = await get(`/api/questions/${id}/`, who)
        assert.ok(queries(response) <= (who === 'anyone' ? 2 : 3), `${who}: question ${id}: ${queries(response)} statements`)
      }
    }
    const draft = await get(`/api/questions/${q.draft}/`, 'author')
    assert.ok(queries(draft) <= 3)
  })
})

describe('what the caller sees on a page built in those statements', () => {
  test('their answers, a private one included, their importance, and their follow link on the author', async () => {
    const { results } = (await get(`/api/questions/?user__username=${people.author!.username}&page_size=50`, 'me')).json()
    const open = byId(results, q.open)
    assert.deepEqual(
      open.my_vote.map((vote: { value: number; private: boolean }) => [vote.value, vote.private]),
      [[2, false]],
    )
    assert.deepEqual(
      open.my_importance.map((importance: { object_id: number; value: number }) => [importance.object_id, importance.value]),
      [[q.open, 5]],
    )
    assert.deepEqual(
      open.user.follow.map((link: { following: number }) => link.following),
      [people.author!.id],
    )
    assert.deepEqual(open.user.latest_compare, [])
    const privately = byId(results, q.privately)
    assert.deepEqual(
      privately.my_vote.map((vote: { value: number; private: boolean }) => [vote.value, vote.private]),
      [[4, true]],
    )
    assert.deepEqual(privately.my_importance, [])
    assert.deepEqual(
      byId(results, q.choice).my_vote.map((vote: { object_id: number }) => vote.object_id),
      [choiceIds[1]],
    )
    // Anyone else sees none of it.
    const anonymous = (await get(`/api/questions/${q.privately}/`, 'anyone')).json()
    assert.deepEqual([anonymous.my_vote, anonymous.my_importance, anonymous.user.follow], [[], [], []])
  })

  test('their_vote under answered_by: only the public answers of someone else, all of the caller’s own', async () => {
    const asMe = (await get(`/api/questions/?answered_by=${people.other!.id}&page_size=50`, 'me')).json().results
    assert.deepEqual(
      asMe.map((question: { id: number }) => question.id),
      [q.open],
    )
    assert.deepEqual(
      asMe[0].their_vote.map((vote: { value: number; private: boolean }) => [vote.value, vote.private]),
      [[5, false]],
    )
    // Staff find the question answered privately, but their_vote still shows public answers only.
    const asStaff = (await get(`/api/questions/?votes__user__username=${people.other!.username}&page_size=50`, 'staff')).json().results
    assert.deepEqual(byId(asStaff, q.privately).their_vote, [])
    assert.equal(byId(asStaff, q.open).their_vote.length, 1)
    const own = (await get(`/api/questions/?answered_by=${people.me!.id}&page_size=50`, 'me')).json().results
    assert.deepEqual(
      byId(own, q.privately).their_vote.map((vote: { value: number; private: boolean }) => [vote.value, vote.private]),
      [[4, true]],
    )
    assert.deepEqual(byId(own, q.privately).their_vote, byId(own, q.privately).my_vote)
  })

  test('the author’s counters: every answer on their own row, public answers only for anyone else', async () => {
    const url = `/api/questions/${q.open}/`
    const own = (await get(url, 'author')).json().user
    assert.equal(own.count_question_votes, 2)
    assert.deepEqual(
      own.latest_compare.map((compare: { user: number }) => compare.user),
      [people.me!.id],
    )
    for (const who of ['anyone', 'me']) {
      const seen = (await get(url, who)).json().user
      assert.equal(seen.count_question_votes, 1, who)
      assert.deepEqual(seen.latest_compare, [], who)
    }
    assert.equal((await get(url, 'staff')).json().user.count_question_votes, 2)
  })
})
