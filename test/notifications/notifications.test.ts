import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { NOTIFICATION_KINDS } from '../../src/engines/notifications/notification-kinds.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const NAMES = ['author', 'ann', 'ben', 'cat', 'dan', 'eve', 'admin'] as const

const send = async (who: string, method: string, url: string, body?: unknown) => {
  const response = await t.send(method as 'POST', url, body, users[who].token)
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
  return response.statusCode === 204 ? null : response.json()
}
const inbox = async (who: string, query = '') => {
  const response = await t.get(`/api/notifications/${query}`, { authorization: `Token ${users[who].token}` })
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}
/** The caller's newest notification of a kind, checked to have the shape every notification has. */
const newest = async (who: string, kind: string) => {
  const page = await inbox(who, `?kind=${kind}`)
  const item = page.results[0]
  assert.ok(item, `${who} has a ${kind} notification`)
  assert.deepEqual(Object.keys(item).sort(), ['actor', 'created_at', 'data', 'id', 'kind', 'link', 'message', 'read', 'read_at', 'url'])
  assert.equal(item.url, `http://localhost:80/api/notifications/${item.id}/`)
  assert.match(item.created_at, TIMESTAMP)
  assert.equal(item.read, false)
  return item
}
const ask = async (who: string, text: string, extra: Record<string, unknown> = {}) =>
  (await send(who, 'POST', '/api/questions/', { question: text, ...extra })) as { id: number }

before(async () => {
  t = await createTestApp('tiny')
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, {
      username: `nt_${name}`,
      first_name: name === 'ann' ? 'Ann' : '',
      last_name: name === 'ann' ? 'Lee' : '',
    })
    users[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
})
after(() => t.close())

describe('each event notifies whom it concerns, in the transaction of the change', () => {
  test('a comment on my question, and a reply to my comment', async () => {
    const question = await ask('author', 'Should the library open on Sundays?')
    const comment = await send('ann', 'POST', '/api/comments/', { question: question.id, text: 'Yes, please' })
    const onQuestion = await newest('author', 'comment_on_question')
    assert.equal(onQuestion.message, 'Ann Lee commented on your question “Should the library open on Sundays?”')
    assert.equal(onQuestion.link, `http://localhost:80/api/comments/${comment.id}/`)
    assert.equal(onQuestion.actor.id, users.ann.id)
    assert.equal(onQuestion.actor.username, 'nt_ann')
    assert.match(onQuestion.actor.photo, /^https?:\/\//)
    assert.deepEqual(onQuestion.data, { comment: comment.id, question: question.id, parent: null })
    assert.equal((await t.get(onQuestion.link)).statusCode, 200)

    const reply = await send('ben', 'POST', '/api/comments/', { question: question.id, text: 'Agreed', parent: comment.id })
    const replied = await newest('ann', 'comment_reply')
    assert.equal(replied.message, 'nt_ben replied to your comment on “Should the library open on Sundays?”')
    assert.equal(replied.data.comment, reply.id)
    // The question's author hears of the reply as a comment on their question, once.
    assert.equal((await inbox('author', '?kind=comment_on_question')).count, 2)
    // The author replying to a comment on their own question: the commenter hears of it, the author does not.
    await send('author', 'POST', '/api/comments/', { question: question.id, text: 'Thanks', parent: comment.id })
    assert.equal((await inbox('ann', '?kind=comment_reply')).count, 2)
    assert.equal((await inbox('author', '?kind=comment_on_question')).count, 2)
  })

  test('a friend request, then its acceptance', async () => {
    const friendship = await send('cat', 'POST', '/api/friends/', { friend: users.dan.id })
    const asked = await newest('dan', 'friend_request')
    assert.equal(asked.message, 'nt_cat asked to be your friend')
    assert.equal(asked.link, `http://localhost:80/api/friends/${friendship.id}/`)
    await send('dan', 'POST', `/api/friends/${friendship.id}/accept/`)
    const accepted = await newest('cat', 'friend_accepted')
    assert.equal(accepted.message, 'nt_dan accepted your friend request')
    assert.equal(accepted.actor.id, users.dan.id)
  })

  test('someone I follow asks a published question; a draft tells nobody', async () => {
    await send('eve', 'POST', '/api/following_users/', { following: users.author.id })
    const question = await ask('author', 'Do we need more cycle lanes?')
    const heard = await newest('eve', 'followed_user_asked')
    assert.equal(heard.message, 'nt_author asked “Do we need more cycle lanes?”')
    assert.equal(heard.link, `http://localhost:80/api/questions/${question.id}/`)
    await ask('author', 'A draft nobody sees yet', { publish: false })
    assert.equal((await inbox('eve', '?kind=followed_user_asked')).count, 1)
  })

  test('my delegate answers on my behalf, then withdraws; answering myself stops it', async () => {
    const tag = await insertTag(t.database.db)
    await send('ben', 'POST', '/api/tag_delegations/', { tag: tag.id, trustee: users.cat.id })
    await send('dan', 'POST', '/api/tag_delegations/', { tag: tag.id, trustee: users.cat.id })
    const question = await ask('author', 'Should the park close at night?', { tags: [{ tag: { id: tag.id } }] })
    await send('dan', 'POST', '/api/question_votes/', { object_id: question.id, value: 2 })
    const vote = await send('cat', 'POST', '/api/question_votes/', { object_id: question.id, value: 5 })
    const answered = await newest('ben', 'delegate_answered')
    assert.equal(answered.message, 'nt_cat answered “Should the park close at night?” on your behalf')
    assert.deepEqual(answered.data, { question: question.id, delegate: users.cat.id })
    // dan answered himself: cat's answer casts no vote of his.
    assert.equal((await inbox('dan', '?kind=delegate_answered')).count, 0)
    await send('cat', 'DELETE', `/api/question_votes/${vote.id}/`)
    const withdrew = await newest('ben', 'delegate_withdrew')
    assert.match(withdrew.message, /^nt_cat withdrew their answer to “Should the park close at night\?”/)
    assert.equal((await inbox('dan', '?kind=delegate_withdrew')).count, 0)
  })

  test('a collection I answered gains a question', async () => {
    const first = await ask('author', 'Is the bus service good enough?')
    const collection = await send('author', 'POST', '/api/question_collections/', { name: 'Transport' })
    await send('author', 'POST', '/api/question_collection_items/', { parent: collection.id, object_id: first.id, type: 'Q' })
    // ann answered the collection itself; ben answered the same question on its own.
    await send('ann', 'POST', '/api/question_votes/', { object_id: first.id, value: 3, collection: collection.id })
    await send('ben', 'POST', '/api/question_votes/', { object_id: first.id, value: 4 })
    const second = await ask('author', 'Should trams come back?')
    await send('author', 'POST', '/api/question_collection_items/', { parent: collection.id, object_id: second.id, type: 'Q' })
    const grew = await newest('ann', 'collection_gained_questions')
    assert.equal(grew.message, 'nt_author added a question to “Transport”, which you answered')
    assert.equal(grew.link, `http://localhost:80/api/question_collections/${collection.id}/`)
    assert.deepEqual(grew.data, { collection: collection.id, questions: [second.id] })
    // Someone who answered its question elsewhere hears nothing.
    assert.equal((await inbox('ben', '?kind=collection_gained_questions')).count, 0)
  })

  test('a group invitation, and a decision on my join request', async () => {
    const group = await insertGroup(t.database.db)
    await t.database.db.updateTable('groups').set({ join_policy: 'request' }).where('id', '=', group.id).execute()
    await t.database.db.insertInto('group_memberships').values({ group_id: group.id, user_id: users.admin.id, role: 'admin' }).execute()
    const invite = await send('admin', 'POST', '/api/group_invites/', { group: group.id, user: users.ann.id })
    const invited = await newest('ann', 'group_invite')
    assert.equal(invited.message, `nt_admin invited you to join “${group.name}”`)
    assert.equal(invited.link, `http://localhost:80/api/group_invites/${invite.id}/`)

    const joinRequest = await send('ben', 'POST', '/api/group_join_requests/', { group: group.id })
    await send('admin', 'POST', `/api/group_join_requests/${joinRequest.id}/accept/`)
    const decided = await newest('ben', 'group_join_decision')
    assert.equal(decided.message, `nt_admin accepted your request to join “${group.name}”`)
    assert.equal(decided.data.status, 'accepted')
    const another = await send('cat', 'POST', '/api/group_join_requests/', { group: group.id })
    await send('admin', 'POST', `/api/group_join_requests/${another.id}/reject/`)
    assert.equal((await newest('cat', 'group_join_decision')).data.status, 'declined')
  })

  test('a change that fails writes no notification', async () => {
    const before = (await inbox('author')).count
    const response = await t.send('POST', '/api/comments/', { question: 999999, text: 'lost' }, users.ann.token)
    assert.equal(response.statusCode, 400)
    assert.equal((await inbox('author')).count, before)
  })

  test('every kind was produced by its event', async () => {
    const rows = await t.database.db.selectFrom('notifications').select('kind').distinct().execute()
    assert.deepEqual(rows.map((row) => row.kind).sort(), [...NOTIFICATION_KINDS].sort())
  })
})

describe('reading, marking and dismissing', () => {
  test('newest first, with the unread count; filters; marking one and all read; deleting', async () => {
    const page = await inbox('ann')
    assert.ok(page.count >= 4)
    assert.equal(page.unread_count, page.count)
    const ids = page.results.map((item: { id: number }) => item.id)
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    )
    const first = page.results[0]

    const marked = await send('ann', 'PATCH', `/api/notifications/${first.id}/`, { read: true })
    assert.equal(marked.read, true)
    assert.match(marked.read_at, TIMESTAMP)
    assert.equal((await inbox('ann')).unread_count, page.count - 1)
    assert.equal((await inbox('ann', '?unread=false')).count, 1)
    assert.equal((await inbox('ann', '?unread=true')).count, page.count - 1)

    const all = await send('ann', 'POST', '/api/notifications/mark_all_read/', {})
    assert.equal(all.marked, page.count - 1)
    assert.equal((await inbox('ann')).unread_count, 0)
    assert.equal((await send('ann', 'POST', '/api/notifications/mark_all_read/', {})).marked, 0)

    const unread = await send('ann', 'PATCH', `/api/notifications/${first.id}/`, { read: false })
    assert.equal(unread.read, false)
    assert.equal(unread.read_at, null)

    await send('ann', 'DELETE', `/api/notifications/${first.id}/`)
    assert.equal((await t.get(`/api/notifications/${first.id}/`, { authorization: `Token ${users.ann.token}` })).statusCode, 404)
    assert.equal((await inbox('ann')).count, page.count - 1)
  })

  test("someone else's notification is refused; bad input names its field; nobody signed in is refused", async () => {
    const theirs = (await inbox('author')).results[0]
    assert.equal((await t.get(`/api/notifications/${theirs.id}/`, { authorization: `Token ${users.ben.token}` })).statusCode, 403)
    assert.equal((await t.send('PATCH', `/api/notifications/${theirs.id}/`, { read: true }, users.ben.token)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/notifications/${theirs.id}/`, undefined, users.ben.token)).statusCode, 403)
    assert.equal((await t.get('/api/notifications/')).statusCode, 403)
    const badKind = await t.get('/api/notifications/?kind=nonsense', { authorization: `Token ${users.ann.token}` })
    assert.equal(badKind.statusCode, 400)
    assert.ok('kind' in badKind.json(), badKind.body)
    const badRead = await t.send('PATCH', `/api/notifications/${theirs.id}/`, { read: 'maybe' }, users.author.token)
    assert.equal(badRead.statusCode, 400)
    assert.ok('read' in badRead.json(), badRead.body)
    assert.equal((await t.get('/api/notifications/999999999/', { authorization: `Token ${users.ann.token}` })).statusCode, 404)
  })

  test('pages carry the envelope; past the last page is 404', async () => {
    const page = await inbox('author', '?page_size=1')
    assert.equal(page.results.length, 1)
    assert.ok(page.next)
    assert.equal(page.unread_count, (await inbox('author')).unread_count)
    const last = await inbox('author', '?page_size=1&page=last')
    assert.equal(last.next, null)
    assert.equal(last.results.length, 1)
    const past = await t.get('/api/notifications/?page=999', { authorization: `Token ${users.author.token}` })
    assert.equal(past.statusCode, 404)
  })
})

describe('settings', () => {
  const settings = (who: string) => t.get('/api/notification_settings/', { authorization: `Token ${users[who].token}` })

  test('defaults: every kind in the app and the weekly digest; personal ones pushed, broad ones not', async () => {
    const response = await settings('eve')
    assert.equal(response.statusCode, 200, response.body)
    const body = response.json()
    assert.equal(body.url, 'http://localhost:80/api/notification_settings/')
    assert.equal(body.digest, 'weekly')
    assert.deepEqual(Object.keys(body.kinds).sort(), [...NOTIFICATION_KINDS].sort())
    assert.deepEqual(body.kinds.friend_request, { in_app: true, email: true, push: true })
    assert.deepEqual(body.kinds.followed_user_asked, { in_app: true, email: true, push: false })
  })

  test('a change keeps the rest; a kind switched off everywhere writes nothing; in_app off keeps it out of the list', async () => {
    let body = await send('eve', 'PATCH', '/api/notification_settings/', { digest: 'daily', kinds: { friend_request: { push: false } } })
    assert.equal(body.digest, 'daily')
    assert.deepEqual(body.kinds.friend_request, { in_app: true, email: true, push: false })
    body = await send('eve', 'PUT', '/api/notification_settings/', { kinds: { friend_request: { email: false } } })
    assert.equal(body.digest, 'daily')
    assert.deepEqual(body.kinds.friend_request, { in_app: true, email: false, push: false })
    assert.deepEqual((await settings('eve')).json(), body)

    // Push only: stored for delivery, not listed.
    await send('eve', 'PATCH', '/api/notification_settings/', { kinds: { friend_request: { in_app: false, push: true } } })
    await send('ann', 'POST', '/api/friends/', { friend: users.eve.id })
    assert.equal((await inbox('eve', '?kind=friend_request')).count, 0)
    const stored = await t.database.db
      .selectFrom('notifications')
      .select(['in_app', 'email', 'push'])
      .where('user_id', '=', users.eve.id)
      .where('kind', '=', 'friend_request')
      .execute()
    assert.deepEqual(stored, [{ in_app: false, email: false, push: true }])

    // Everything off: no row at all.
    await send('eve', 'PATCH', '/api/notification_settings/', { kinds: { friend_accepted: { in_app: false, email: false, push: false } } })
    const friendship = (await inbox('eve', '?kind=friend_request')).results
    assert.equal(friendship.length, 0)
    const request = await t.database.db
      .selectFrom('friendships')
      .select('id')
      .where('user_id', '=', users.ann.id)
      .where('friend_id', '=', users.eve.id)
      .executeTakeFirstOrThrow()
    await send('eve', 'POST', `/api/friends/${request.id}/accept/`)
    const accepted = await t.database.db
      .selectFrom('notifications')
      .select('id')
      .where('kind', '=', 'friend_accepted')
      .where('actor_id', '=', users.eve.id)
      .execute()
    assert.equal(accepted.length, 1, 'ann (default settings) hears of it')
  })

  test('bad settings name the field and change nothing', async () => {
    const before = (await settings('eve')).json()
    for (const [body, field] of [
      [{ digest: 'hourly' }, 'digest'],
      [{ kinds: { nonsense: { push: true } } }, 'kinds'],
      [{ kinds: { friend_request: { push: 'yes' } } }, 'kinds'],
      [{ kinds: { friend_request: { push: true }, lost: { email: true } } }, 'kinds'],
    ] as const) {
      const response = await t.send('PATCH', '/api/notification_settings/', body, users.eve.token)
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.ok(
        Object.keys(response.json()).some((key) => key.startsWith(field)),
        `${response.body} names ${field}`,
      )
    }
    assert.deepEqual((await settings('eve')).json(), before)
    assert.equal((await t.get('/api/notification_settings/')).statusCode, 403)
  })
})
