import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const ids: Record<string, number> = {}

const act = async (who: string, method: string, url: string, body?: unknown) => {
  const response = await t.send(method as 'POST', url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`)
  return response.json()
}
const feed = async (query = '') => {
  const response = await t.get(`/api/relevant_activity/${query}`, { authorization: `Token ${people.me.token}` })
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}
const keys = (page: { results: { kind: string; id: number; reason: string }[] }) =>
  page.results.map((item) => `${item.kind}:${item.id}:${item.reason}`)

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['me', 'author', 'friend', 'commenter', 'gone']) {
    const row = await insertUser(db, { username: `feed_${name}` })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const tag = await insertTag(db)
  const group = await insertGroup(db)
  ids.tag = tag.id
  ids.group = group.id
  await act('me', 'POST', '/api/following_tags/', { tag: tag.id })
  await db.insertInto('group_memberships').values({ group_id: group.id, user_id: people.me.id }).execute()
  await act('me', 'POST', '/api/following_users/', { following: people.friend.id })
  await act('me', 'POST', '/api/following_users/', { following: people.gone.id })

  const ask = async (who: string, text: string, extra: Record<string, unknown> = {}) =>
    (await act(who, 'POST', '/api/questions/', { question: text, ...extra })).id as number
  ids.inTag = await ask('author', 'Tagged question', { tags: [{ tag: { id: tag.id } }] })
  ids.inGroup = (await insertQuestion(db, people.author.id, { question: 'Group question' })).id
  await db.insertInto('group_question_connections').values({ group_id: group.id, question_id: ids.inGroup }).execute()
  ids.byFriend = await ask('friend', 'Friend question')
  ids.byFriendInTag = await ask('friend', 'Friend question in the tag', { tags: [{ tag: { id: tag.id } }] })
  ids.friendDraft = await ask('friend', 'Friend draft', { publish: false })
  ids.mine = await ask('me', 'My own question', { tags: [{ tag: { id: tag.id } }] })
  ids.byGone = await ask('gone', 'Question by an account that goes')
  await db.updateTable('users').set({ is_active: false }).where('id', '=', people.gone.id).execute()

  ids.publicAnswer = (await act('friend', 'POST', '/api/question_votes/', { object_id: ids.inTag, value: 4 })).id
  await act('friend', 'POST', '/api/question_votes/', { object_id: ids.byFriend, value: 2, private: true })
  await act('me', 'POST', '/api/question_votes/', { object_id: ids.byFriend, value: 3 })
  ids.comment = (await act('commenter', 'POST', '/api/comments/', { question: ids.mine, text: 'Good point' })).id
  await act('me', 'POST', '/api/comments/', { question: ids.mine, text: 'Thanks' })
})
after(() => t.close())

test('each source shows once, with its reason, newest first; nothing of mine, nothing private, nothing by a gone account', async () => {
  const page = await feed('?page_size=100')
  assert.deepEqual(keys(page), [
    `comment:${ids.comment}:my_question`,
    `answer:${ids.publicAnswer}:followed_user`,
    `question:${ids.byFriendInTag}:followed_tag`,
    `question:${ids.byFriend}:followed_user`,
    `question:${ids.inGroup}:group`,
    `question:${ids.inTag}:followed_tag`,
  ])
  assert.equal(page.count, 6)
  const times = page.results.map((item: { created_at: string }) => item.created_at)
  assert.deepEqual(times, [...times].sort().reverse())
})

test('items carry who, what and why, with links that answer', async () => {
  const page = await feed()
  for (const item of page.results) {
    assert.deepEqual(Object.keys(item).sort(), [
      'actor',
      'choice',
      'comment',
      'created_at',
      'group',
      'id',
      'kind',
      'question',
      'reason',
      'tag',
      'value',
    ])
    assert.match(item.created_at, TIMESTAMP)
    assert.match(item.actor.photo, /^https?:\/\//)
    assert.equal((await t.get(new URL(item.question.url).pathname)).statusCode, 200)
  }
  const [comment, answer, , , group, tagged] = page.results
  assert.deepEqual(comment.comment, { id: ids.comment, url: `http://localhost:80/api/comments/${ids.comment}/`, text: 'Good point' })
  assert.equal(comment.actor.username, 'feed_commenter')
  assert.equal(answer.value, 4)
  assert.equal(answer.question.id, ids.inTag)
  assert.equal(answer.actor.id, people.friend.id)
  assert.equal(group.group.id, ids.group)
  assert.equal(tagged.tag.id, ids.tag)
  assert.equal(tagged.question.question, 'Tagged question')
  assert.equal((await t.get(new URL(comment.comment.url).pathname)).statusCode, 200)
})

test('filters by kind and time; pages; one statement a page', async () => {
  assert.deepEqual(keys(await feed('?kind=comment,answer')), [
    `comment:${ids.comment}:my_question`,
    `answer:${ids.publicAnswer}:followed_user`,
  ])
  const all = await feed()
  const cut = all.results[1].created_at
  assert.equal((await feed(`?since=${encodeURIComponent(cut)}`)).count, 2)
  assert.equal((await feed('?since=2999-01-01T00:00:00Z')).count, 0)
  const first = await t.get('/api/relevant_activity/?page_size=2', { authorization: `Token ${people.me.token}` })
  // The token's look-up, then the page.
  assert.equal(first.headers['x-query-count'], '2')
  assert.match(first.json().next, /page=2/)
  const last = await feed('?page_size=4&page=last')
  assert.equal(last.results.length, 2)
  assert.equal(last.next, null)
})

test('signed-in only; bad filters name their field', async () => {
  assert.equal((await t.get('/api/relevant_activity/')).statusCode, 403)
  for (const [query, field] of [
    ['?kind=vote', 'kind'],
    ['?since=yesterday', 'since'],
    ['?since=2024-13-45', 'since'],
  ]) {
    const response = await t.get(`/api/relevant_activity/${query}`, { authorization: `Token ${people.me.token}` })
    assert.equal(response.statusCode, 400, query)
    assert.ok(field in response.json(), `${query}: ${response.body}`)
  }
})
