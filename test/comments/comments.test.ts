import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertCountersMatchRows, commentCount, userCounters } from './fixtures.ts'

let t: TestApp
const ids: Record<string, number> = {}
const tokens: Record<string, string> = {}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['alice', 'bob', 'carol']) ids[name] = (await insertUser(db, { first_name: name, last_name: 'Tester' })).id
  ids.staff = (await insertUser(db, { is_staff: true })).id
  for (const name of ['alice', 'bob', 'carol', 'staff']) tokens[name] = await t.tokenFor(ids[name])
  ids.canal = (await insertQuestion(db, ids.alice, { question: 'Canals deserve more funding' })).id
  ids.bridge = (await insertQuestion(db, ids.bob, { question: 'Bridges need repainting' })).id
  ids.draft = (await insertQuestion(db, ids.alice, { question: 'Draft about lighthouses', publish: false })).id
  // Bob answers the canal question in public, Carol in private.
  await db
    .insertInto('question_votes')
    .values([
      { question_id: ids.canal, user_id: ids.bob, value: 4 },
      { question_id: ids.canal, user_id: ids.carol, value: 2, private: true },
    ])
    .execute()
})
after(() => t.close())

const post = (body: unknown, who?: string) => t.send('POST', '/api/comments/', body, who ? tokens[who] : undefined)
const auth = (who: string) => ({ authorization: `Token ${tokens[who]}` })
const idsOf = (page: any) => page.results.map((item: any) => item.id)

async function comment(who: string, body: Record<string, unknown>) {
  const response = await post(body, who)
  assert.equal(response.statusCode, 201, response.body)
  return response.json()
}

describe('writing comments', () => {
  test('a comment: 201 with the listing shape, Location, and counted on its question and author', async () => {
    const before = await commentCount(t.database.db, ids.canal)
    const response = await post({ text: '  Locks need repair first  ', question: ids.canal, subtype: 'reason' }, 'bob')
    assert.equal(response.statusCode, 201, response.body)
    const body = response.json()
    assert.equal(response.headers.location, body.url)
    assert.equal(body.url, `http://localhost:80/api/comments/${body.id}/`)
    assert.deepEqual(Object.keys(body).sort(), [
      'created_at',
      'direct_maximum',
      'direct_minimum',
      'id',
      'is_hidden',
      'modified_at',
      'my_vote',
      'parent',
      'question',
      'question_info',
      'report_count',
      'subtype',
      'text',
      'url',
      'user',
      'vote',
    ])
    assert.equal(body.text, 'Locks need repair first', 'the text is trimmed')
    assert.equal(body.subtype, 'reason')
    assert.equal(body.parent, null)
    assert.equal(body.question, ids.canal)
    assert.deepEqual(body.question_info, {
      id: ids.canal,
      url: `http://localhost:80/api/questions/${ids.canal}/`,
      question: 'Canals deserve more funding',
      slug: body.question_info.slug,
    })
    assert.equal(body.user.id, ids.bob)
    assert.equal(body.user.first_name, 'bob')
    assert.match(body.user.photo, /^https?:\/\//)
    assert.equal(body.vote.length, 1)
    assert.equal(body.vote[0].value, 4, "the author's answer to the question")
    assert.equal(body.vote[0].object_id, ids.canal)
    assert.deepEqual(body.my_vote, [])
    assert.equal(body.direct_maximum, 0)
    assert.equal(body.direct_minimum, 0)
    assert.equal(body.is_hidden, false)
    assert.equal(body.report_count, null)
    assert.match(body.created_at, TIMESTAMP)
    assert.match(body.modified_at, TIMESTAMP)
    const after = await commentCount(t.database.db, ids.canal)
    assert.equal(after.count_comments, before.count_comments + 1)
    assert.equal(after.count_comments_reason, before.count_comments_reason + 1)
    assert.equal(after.count_comments_info, before.count_comments_info)
    assert.equal((await userCounters(t.database.db, ids.bob)).count_comments, 1)
  })

  test('subtype defaults to info; a form-encoded body with the question id as a string works', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/comments/',
      headers: { ...auth('carol'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `text=Boats+too&question=${ids.canal}`,
    })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().subtype, 'info')
    assert.equal(response.json().vote[0].value, 2, 'the author sees their own private answer')
    assert.deepEqual((await t.json(`/api/comments/${response.json().id}/`)).vote, [], "Carol's answer is private: others do not see it")
    assert.deepEqual((await t.json(`/api/comments/${response.json().id}/`, auth('bob'))).vote, [])
  })

  test('a reply names a parent on the same question and is listed flat', async () => {
    const parent = await comment('alice', { text: 'Which canals?', question: ids.canal, subtype: 'info' })
    const reply = await comment('bob', { text: 'The northern ones', question: ids.canal, parent: parent.id })
    assert.equal(reply.parent, parent.id)
    const listed = await t.json(`/api/comments/?question=${ids.canal}&page_size=100`)
    assert.ok(idsOf(listed).includes(parent.id) && idsOf(listed).includes(reply.id))
    const elsewhere = await comment('bob', { text: 'Bridges too', question: ids.bridge })
    const wrong = await post({ text: 'Mixed up', question: ids.canal, parent: elsewhere.id }, 'carol')
    assert.equal(wrong.statusCode, 400)
    assert.deepEqual(wrong.json(), { parent: ['The parent comment belongs to another question.'] })
    const explicitNull = await post({ text: 'Top level again', question: ids.canal, parent: null }, 'carol')
    assert.equal(explicitNull.statusCode, 201, explicitNull.body)
    assert.equal(explicitNull.json().parent, null)
  })

  test('bad input answers 400 naming the field and changes nothing', async () => {
    const db = t.database.db
    const before = [await commentCount(db, ids.canal), await userCounters(db, ids.carol)]
    const cases: [unknown, Record<string, string[]>][] = [
      [{ question: ids.canal }, { text: ['This field is required.'] }],
      [{ text: '   ', question: ids.canal }, { text: ['This field may not be blank.'] }],
      [{ text: 'x', question: 999999 }, { question: ['Invalid pk "999999" - object does not exist.'] }],
      [{ text: 'x', question: ids.draft }, { question: [`Invalid pk "${ids.draft}" - object does not exist.`] }],
      [{ text: 'x', question: ids.canal, subtype: 'rant' }, { subtype: ['"rant" is not a valid choice.'] }],
      [{ text: 'x', question: ids.canal, parent: 999999 }, { parent: ['Invalid pk "999999" - object does not exist.'] }],
      [{ text: 'x', question: 'abc' }, { question: ['A valid integer is required.'] }],
      [{ text: 'x'.repeat(10_001), question: ids.canal }, { text: ['Ensure this field has no more than 10000 characters.'] }],
    ]
    for (const [body, errors] of cases) {
      const response = await post(body, 'carol')
      assert.equal(response.statusCode, 400, JSON.stringify(body).slice(0, 80))
      assert.deepEqual(response.json(), errors)
    }
    const malformed = await t.request({
      method: 'POST',
      url: '/api/comments/',
      headers: { ...auth('carol'), 'content-type': 'application/json' },
      payload: '{"text": ',
    })
    assert.equal(malformed.statusCode, 400)
    assert.match(malformed.json().detail, /^JSON parse error - /)
    for (const body of [null, [], 'text', 5]) {
      const response = await post(body, 'carol')
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.deepEqual(Object.keys(response.json()), ['non_field_errors'])
    }
    assert.deepEqual([await commentCount(db, ids.canal), await userCounters(db, ids.carol)], before)
  })

  test('JSON values of the wrong type answer 400 naming the field, never coerced into an id or a text', async () => {
    const db = t.database.db
    const before = [await commentCount(db, ids.canal), await userCounters(db, ids.carol)]
    const cases: [unknown, Record<string, string[]>][] = [
      [{ text: 'x', question: true }, { question: ['A valid integer is required.'] }],
      [{ text: 'x', question: [ids.canal] }, { question: ['A valid integer is required.'] }],
      [{ text: 'x', question: null }, { question: ['This field may not be null.'] }],
      [{ text: 'x', question: '' }, { question: ['This field may not be null.'] }],
      [{ text: true, question: ids.canal }, { text: ['Not a valid string.'] }],
      [{ text: ['a'], question: ids.canal }, { text: ['Not a valid string.'] }],
      [{ text: { a: 1 }, question: ids.canal }, { text: ['Not a valid string.'] }],
      [{ text: null, question: ids.canal }, { text: ['This field may not be null.'] }],
      [{ text: 'x', question: ids.canal, subtype: null }, { subtype: ['This field may not be null.'] }],
      [{ text: 'x', question: ids.canal, parent: true }, { parent: ['A valid integer is required.'] }],
      [{ text: 'x', question: ids.canal, parent: -3 }, { parent: ['Ensure this value is greater than or equal to 1.'] }],
      [{ text: 'x', question: 2 ** 40 }, { question: ['Ensure this value is less than or equal to 2147483647.'] }],
      // Every field at fault is named in the one answer, in the order of the body's fields: first what
      // the body itself shows, then (once that is right) the ids that name nothing.
      [
        { text: true, question: 'abc' },
        { text: ['Not a valid string.'], question: ['A valid integer is required.'] },
      ],
      [
        { text: ' ', question: 'abc', subtype: 'rant', parent: false },
        {
          text: ['This field may not be blank.'],
          question: ['A valid integer is required.'],
          subtype: ['"rant" is not a valid choice.'],
          parent: ['A valid integer is required.'],
        },
      ],
      [
        { text: 'x', question: 999999, parent: 999998 },
        {
          question: ['Invalid pk "999999" - object does not exist.'],
          parent: ['Invalid pk "999998" - object does not exist.'],
        },
      ],
    ]
    for (const [body, errors] of cases) {
      const response = await post(body, 'carol')
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.deepEqual(response.json(), errors, JSON.stringify(body))
    }
    // A number is a fine text, as DRF's CharField reads it; an empty parent is no parent.
    const numeric = await post({ text: 42, question: ids.canal, parent: '' }, 'carol')
    assert.equal(numeric.statusCode, 201, numeric.body)
    assert.deepEqual([numeric.json().text, numeric.json().parent], ['42', null])
    assert.equal((await t.send('DELETE', `/api/comments/${numeric.json().id}/`, undefined, tokens.carol)).statusCode, 204)
    assert.deepEqual([await commentCount(db, ids.canal), await userCounters(db, ids.carol)], before)
  })

  test('a very long text: 10,000 characters after trimming at most; past the size of a request, 413', async () => {
    const db = t.database.db
    const before = await commentCount(db, ids.bridge)
    const long = await post({ text: 'w'.repeat(500_000), question: ids.bridge }, 'carol')
    assert.equal(long.statusCode, 400)
    assert.deepEqual(long.json(), { text: ['Ensure this field has no more than 10000 characters.'] })
    const huge = await post({ text: 'w'.repeat(1_100_000), question: ids.bridge }, 'carol')
    assert.equal(huge.statusCode, 413)
    assert.deepEqual(Object.keys(huge.json()), ['detail'])
    assert.deepEqual(await commentCount(db, ids.bridge), before, 'nothing was stored')
    // The limit counts what is kept: blanks around the text are trimmed first.
    const padded = await post({ text: `   ${'w'.repeat(10_000)}\n\n`, question: ids.bridge }, 'carol')
    assert.equal(padded.statusCode, 201, padded.body.slice(0, 200))
    assert.equal(padded.json().text.length, 10_000)
    assert.equal((await t.json(`/api/comments/${padded.json().id}/`)).text, 'w'.repeat(10_000))
    assert.equal((await t.send('DELETE', `/api/comments/${padded.json().id}/`, undefined, tokens.carol)).statusCode, 204)
  })

  test('a chatbot-style form body: every value a string, empty optional fields left out, the last of a repeated field', async () => {
    const form = (payload: string) =>
      t.request({
        method: 'POST',
        url: '/api/comments/',
        headers: { ...auth('carol'), 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      })
    const top = await form(`text=Ferries+first%21&question=${ids.canal}&subtype=suggestion&parent=`)
    assert.equal(top.statusCode, 201, top.body)
    assert.deepEqual([top.json().text, top.json().subtype, top.json().parent], ['Ferries first!', 'suggestion', null])
    const reply = await form(`text=Agreed&question=${ids.canal}&parent=${top.json().id}&subtype=`)
    assert.equal(reply.statusCode, 201, reply.body)
    assert.deepEqual([reply.json().parent, reply.json().subtype], [top.json().id, 'info'])
    const repeated = await form(`text=first&text=second&question=${ids.canal}`)
    assert.equal(repeated.statusCode, 201, repeated.body)
    assert.equal(repeated.json().text, 'second')
    const bad = await form(`text=&question=abc`)
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(bad.json(), { text: ['This field may not be blank.'], question: ['A valid integer is required.'] })
    const noQuestion = await form('text=hello&question=')
    assert.deepEqual([noQuestion.statusCode, noQuestion.json()], [400, { question: ['This field may not be null.'] }])
    const edited = await t.request({
      method: 'PATCH',
      url: `/api/comments/${repeated.json().id}/`,
      headers: { ...auth('carol'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'text=third&subtype=',
    })
    assert.equal(edited.statusCode, 200, edited.body)
    assert.deepEqual([edited.json().text, edited.json().subtype], ['third', 'info'])
  })

  test('without credentials a write answers 403; the author may comment on their own draft', async () => {
    assert.equal((await post({ text: 'x', question: ids.canal })).statusCode, 403)
    const draft = await comment('alice', { text: 'Note to self', question: ids.draft })
    assert.equal(draft.question, ids.draft)
  })
})

describe('what a comment shows of its author', () => {
  test("vote[] is the author's current answer; a private one only the author sees, staff included", async () => {
    const db = t.database.db
    const poll = (await insertQuestion(db, ids.alice, { question: 'Which ferry route first?', subtype: 'mcq' })).id
    const choices = await db
      .insertInto('question_choices')
      .values([
        { question_id: poll, text: 'North', store_number: 0 },
        { question_id: poll, text: 'South', store_number: 1 },
      ])
      .returning('id')
      .execute()
    await db
      .insertInto('question_choice_votes')
      .values([
        { question_id: poll, choice_id: choices[0].id, user_id: ids.alice, value: 5 },
        { question_id: poll, choice_id: choices[1].id, user_id: ids.bob, value: 5, private: true },
      ])
      .execute()
    const byAlice = await comment('alice', { text: 'North is busier', question: poll, subtype: 'reason' })
    const byBob = await comment('bob', { text: 'South is cheaper', question: poll, subtype: 'reason' })
    const byCarol = await comment('carol', { text: 'Both, eventually', question: poll })
    const votes = async (who?: string) => {
      const page = await t.json(`/api/comments/?question=${poll}`, who ? auth(who) : {})
      return Object.fromEntries(page.results.map((c: any) => [c.id, c.vote.map((v: any) => [v.object_id, v.value, v.private])]))
    }
    const publicOnly = { [byAlice.id]: [[choices[0].id, 5, false]], [byBob.id]: [], [byCarol.id]: [] }
    assert.deepEqual(await votes(), publicOnly, 'a choice answer names the choice; the private one is left out')
    assert.deepEqual(await votes('carol'), publicOnly)
    assert.deepEqual(await votes('staff'), publicOnly, 'staff do not see private answers here either')
    assert.deepEqual(await votes('bob'), { ...publicOnly, [byBob.id]: [[choices[1].id, 5, true]] }, 'the author sees their own')
    // The vote follows the author's current answer.
    await db
      .updateTable('question_choice_votes')
      .set({ private: false })
      .where('user_id', '=', ids.bob)
      .where('question_id', '=', poll)
      .execute()
    assert.deepEqual(
      (await t.json(`/api/comments/${byBob.id}/`)).vote.map((v: any) => v.object_id),
      [choices[1].id],
    )
  })

  test('photo is always an absolute URL: the stored one, or the default avatar that the service serves', async () => {
    const db = t.database.db
    const photoOf = async (photo: string | null) => {
      const author = await insertUser(db, { photo })
      const said = await t.send('POST', '/api/comments/', { text: 'Look at me', question: ids.bridge }, await t.tokenFor(author.id))
      assert.equal(said.statusCode, 201, said.body)
      return (await t.json(`/api/comments/${said.json().id}/`)).user.photo
    }
    assert.equal(await photoOf('photos/dana.jpg'), 'http://localhost:80/photos/dana.jpg')
    assert.equal(await photoOf('https://images.example.org/eli.png'), 'https://images.example.org/eli.png')
    const fallback = await photoOf(null)
    assert.equal(fallback, 'http://localhost:80/static/default-avatar.svg')
    assert.equal((await t.get(new URL(fallback).pathname)).statusCode, 200)
  })

  test('a deleted author: their comments stay, shown anonymised, with the default avatar', async () => {
    const db = t.database.db
    const leaver = await insertUser(db, { first_name: 'Gwen', last_name: 'Leaving', photo: 'photos/gwen.jpg' })
    const token = await t.tokenFor(leaver.id)
    await db.insertInto('question_votes').values({ question_id: ids.bridge, user_id: leaver.id, value: 5 }).execute()
    const said = await t.send('POST', '/api/comments/', { text: 'Blue, please', question: ids.bridge, subtype: 'suggestion' }, token)
    assert.equal(said.statusCode, 201, said.body)
    const before = await commentCount(db, ids.bridge)
    const deleted = await t.send('POST', '/auth/delete-account/', {}, token)
    assert.equal(deleted.statusCode, 204, deleted.body)
    const shown = await t.json(`/api/comments/${said.json().id}/`)
    assert.deepEqual(shown.user, {
      id: leaver.id,
      url: `http://localhost:80/api/users/${leaver.id}/`,
      username: `deleted_${leaver.id}`,
      first_name: '',
      last_name: '[deleted]',
      photo: 'http://localhost:80/static/default-avatar.svg',
    })
    assert.equal(shown.text, 'Blue, please')
    assert.deepEqual(
      shown.vote.map((v: any) => v.value),
      [5],
      'the public answer stays, anonymous now',
    )
    assert.ok(idsOf(await t.json(`/api/comments/?question=${ids.bridge}&page_size=100`)).includes(said.json().id))
    assert.deepEqual(await commentCount(db, ids.bridge), before)
    assert.equal((await t.send('PATCH', `/api/comments/${said.json().id}/`, { text: 'x' }, token)).statusCode, 401, 'their tokens are gone')
  })
})

describe('the listing', () => {
  let local: Record<string, number> = {}
  before(async () => {
    const q = (await insertQuestion(t.database.db, ids.carol, { question: 'Parks should open later' })).id
    const first = await comment('alice', { text: 'Lights are needed', question: q, subtype: 'suggestion' })
    const second = await comment('bob', { text: 'Safety first', question: q, subtype: 'reason' })
    const reply = await comment('carol', { text: 'Agreed', question: q, parent: first.id, subtype: 'info' })
    local = { q, first: first.id, second: second.id, reply: reply.id }
    for (const [who, id, value] of [
      ['alice', second.id, 5],
      ['carol', second.id, 5],
      ['bob', first.id, 1],
    ] as const) {
      const vote = await t.send('POST', '/api/comment_votes/', { object_id: id, value }, tokens[who])
      assert.equal(vote.statusCode, 201, vote.body)
    }
  })

  test('filters: question, user, parent, parent__isnull, subtype, id', async () => {
    const { q, first, second, reply } = local
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}`)), [reply, second, first])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&user=${ids.bob}`)), [second])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?parent=${first}`)), [reply])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&parent__isnull=true`)), [second, first])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&parent__isnull=0`)), [reply])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&subtype=reason`)), [second])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?id=${reply}`)), [reply])
    assert.equal((await t.get('/api/comments/?question=abc')).statusCode, 400)
    assert.equal((await t.get('/api/comments/?parent__isnull=maybe')).statusCode, 400)
  })

  test('ordering: newest first by default, created_at as asked, by votes; unknown fields fall back', async () => {
    const { q, first, second, reply } = local
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}`)), [reply, second, first])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&ordering=-created_at`)), [reply, second, first])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&ordering=created_at`)), [first, second, reply])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&ordering=-direct_maximum,created_at`)), [second, first, reply])
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&ordering=-direct_minimum,created_at`)), [first, second, reply])
    assert.deepEqual(
      idsOf(await t.json(`/api/comments/?question=${q}&ordering=report_count`)),
      [reply, second, first],
      'report_count is for staff only',
    )
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&ordering=nonsense`)), [reply, second, first])
  })

  test('with more than 10 comments a new one is on page 1 without ordering (the older web app reads only that)', async () => {
    const q = (await insertQuestion(t.database.db, ids.carol, { question: 'Busy question' })).id
    const older: number[] = []
    for (let i = 0; i < 11; i++) older.push((await comment(i % 2 ? 'alice' : 'bob', { text: `Point ${i}`, question: q })).id)
    const fresh = await comment('carol', { text: 'A late thought', question: q })
    const page1 = await t.json(`/api/comments/?question=${q}`)
    assert.equal(page1.count, 12)
    assert.equal(page1.results.length, 10)
    assert.deepEqual(idsOf(page1), [fresh.id, ...older.slice(2).reverse()])
    assert.equal(page1.results[0].text, 'A late thought')
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&page=2`)), older.slice(0, 2).reverse())
    // The newer web app asks for oldest first and walks the pages; that order is unchanged.
    const oldestFirst = await t.json(`/api/comments/?question=${q}&ordering=created_at`)
    assert.deepEqual(idsOf(oldestFirst), older.slice(0, 10))
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${q}&ordering=created_at&page=2`)), [older[10], fresh.id])
  })

  test("my_vote is the caller's active vote on each comment", async () => {
    const { q, first, second } = local
    const page = await t.json(`/api/comments/?question=${q}`, auth('alice'))
    const byId = new Map(page.results.map((c: any) => [c.id, c]))
    const mine = (byId.get(second) as any).my_vote
    assert.equal(mine.length, 1)
    assert.equal(mine[0].value, 5)
    assert.equal(mine[0].object_id, second)
    assert.deepEqual((byId.get(first) as any).my_vote, [])
    assert.equal((byId.get(second) as any).direct_maximum, 2)
    const anonymous = await t.json(`/api/comments/?question=${q}`)
    for (const item of anonymous.results) assert.deepEqual(item.my_vote, [])
  })

  test('the page is the envelope of spec 2.1 with page_size, and the detail equals the listed item', async () => {
    const { q, second } = local
    const page = await t.json(`/api/comments/?question=${q}&page_size=2`)
    assert.equal(page.count, 3)
    assert.equal(page.results.length, 2)
    assert.equal(page.next_id, 2)
    assert.equal(page.next, `http://localhost:80/api/comments/?page=2&page_size=2&question=${q}`)
    const listed = (await t.json(`/api/comments/?id=${second}`, auth('alice'))).results[0]
    assert.deepEqual(await t.json(`/api/comments/${second}/`, auth('alice')), listed)
    assert.equal((await t.get('/api/comments/999999/')).statusCode, 404)
    assert.equal((await t.get('/api/comments/abc/')).statusCode, 404)
  })

  test('a constant number of statements whatever the page size', async () => {
    const small = await t.get('/api/comments/?page_size=2', auth('alice'))
    const large = await t.get('/api/comments/?page_size=100', auth('alice'))
    assert.ok(large.json().results.length > 20, 'the seed has comments')
    assert.equal(large.headers['x-query-count'], small.headers['x-query-count'])
    assert.ok(Number(large.headers['x-query-count']) <= 8, `statements: ${large.headers['x-query-count']}`)
  })

  test('comments on a draft are seen by its author and staff only', async () => {
    const url = `/api/comments/?question=${ids.draft}`
    assert.equal((await t.json(url)).count, 0)
    assert.equal((await t.json(url, auth('bob'))).count, 0)
    assert.equal((await t.json(url, auth('alice'))).count, 1)
    assert.equal((await t.json(url, auth('staff'))).count, 1)
    const id = (await t.json(url, auth('alice'))).results[0].id
    assert.equal((await t.get(`/api/comments/${id}/`)).statusCode, 404)
  })
})

describe('editing and removing', () => {
  test('the author changes text and subtype; the subtype moves between the question counts', async () => {
    const db = t.database.db
    const created = await comment('bob', { text: 'First thought', question: ids.bridge, subtype: 'info' })
    const before = await commentCount(db, ids.bridge)
    const response = await t.send('PATCH', `/api/comments/${created.id}/`, { subtype: 'suggestion', text: 'Second thought' }, tokens.bob)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.json().text, 'Second thought')
    assert.equal(response.json().subtype, 'suggestion')
    assert.ok(response.json().modified_at >= created.modified_at)
    const after = await commentCount(db, ids.bridge)
    assert.equal(after.count_comments, before.count_comments)
    assert.equal(after.count_comments_info, before.count_comments_info - 1)
    assert.equal(after.count_comments_suggestion, before.count_comments_suggestion + 1)
  })

  test('PUT needs the text; question and parent cannot change; strangers are refused, staff are not', async () => {
    const created = await comment('bob', { text: 'Paint it blue', question: ids.bridge })
    const url = `/api/comments/${created.id}/`
    const noText = await t.send('PUT', url, { subtype: 'info' }, tokens.bob)
    assert.equal(noText.statusCode, 400)
    assert.deepEqual(noText.json(), { text: ['This field is required.'] })
    const put = await t.send('PUT', url, { text: 'Paint it green', question: ids.bridge, parent: null }, tokens.bob)
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().text, 'Paint it green')
    const moved = await t.send('PATCH', url, { question: ids.canal }, tokens.bob)
    assert.equal(moved.statusCode, 400)
    assert.deepEqual(moved.json(), { question: ['A comment cannot move to another question.'] })
    assert.equal((await t.send('PATCH', url, { text: 'mine now' }, tokens.carol)).statusCode, 403)
    assert.equal((await t.send('PATCH', url, { text: 'mine now' })).statusCode, 403)
    const staff = await t.send('PATCH', url, { text: 'Edited by the moderators' }, tokens.staff)
    assert.equal(staff.statusCode, 200)
    assert.equal(staff.json().text, 'Edited by the moderators')
    assert.equal((await t.send('PATCH', '/api/comments/999999/', { text: 'x' }, tokens.bob)).statusCode, 404)
  })

  test('removing a comment takes its votes away from the counters and moves its replies up', async () => {
    const db = t.database.db
    const top = await comment('alice', { text: 'Top', question: ids.bridge })
    const middle = await comment('bob', { text: 'Middle', question: ids.bridge, parent: top.id, subtype: 'reason' })
    const reply = await comment('carol', { text: 'Reply', question: ids.bridge, parent: middle.id })
    const vote = await t.send('POST', '/api/comment_votes/', { object_id: middle.id, value: 5 }, tokens.carol)
    assert.equal(vote.statusCode, 201, vote.body)
    const before = {
      question: await commentCount(db, ids.bridge),
      bob: await userCounters(db, ids.bob),
      carol: await userCounters(db, ids.carol),
    }
    assert.equal((await t.send('DELETE', `/api/comments/${middle.id}/`, undefined, tokens.carol)).statusCode, 403)
    const removed = await t.send('DELETE', `/api/comments/${middle.id}/`, undefined, tokens.bob)
    assert.equal(removed.statusCode, 204)
    assert.equal(removed.body, '')
    assert.equal((await t.get(`/api/comments/${middle.id}/`)).statusCode, 404)
    assert.equal((await t.json(`/api/comments/${reply.id}/`)).parent, top.id)
    const after = {
      question: await commentCount(db, ids.bridge),
      bob: await userCounters(db, ids.bob),
      carol: await userCounters(db, ids.carol),
    }
    assert.equal(after.question.count_comments, before.question.count_comments - 1)
    assert.equal(after.question.count_comments_reason, before.question.count_comments_reason - 1)
    assert.equal(after.bob.count_comments, before.bob.count_comments - 1)
    assert.equal(after.carol.count_comment_votes, before.carol.count_comment_votes - 1)
    assert.equal((await t.send('DELETE', `/api/comments/${middle.id}/`, undefined, tokens.bob)).statusCode, 404)
  })
})

describe('moderation', () => {
  let target: any
  before(async () => {
    target = await comment('bob', { text: 'Something rude', question: ids.canal, subtype: 'suggestion' })
  })

  test('a report: 201 once, then 200 with the same report; only staff see the count', async () => {
    const url = `/api/comments/${target.id}/report/`
    assert.equal((await t.send('POST', url, { reason: 'Offensive' })).statusCode, 403)
    const first = await t.send('POST', url, { reason: 'Offensive' }, tokens.carol)
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.json().comment, target.id)
    assert.equal(first.json().reason, 'Offensive')
    const again = await t.send('POST', url, { reason: 'Still offensive' }, tokens.carol)
    assert.equal(again.statusCode, 200)
    assert.deepEqual(again.json(), first.json())
    assert.equal((await t.send('POST', url, {}, tokens.alice)).statusCode, 201, 'the reason is optional')
    const own = await t.send('POST', url, {}, tokens.bob)
    assert.equal(own.statusCode, 400)
    assert.deepEqual(own.json(), { non_field_errors: ['You cannot report your own comment.'] })
    assert.equal((await t.json(`/api/comments/${target.id}/`, auth('staff'))).report_count, 2)
    assert.equal((await t.json(`/api/comments/${target.id}/`, auth('carol'))).report_count, null)
    assert.equal((await t.send('POST', '/api/comments/999999/report/', {}, tokens.carol)).statusCode, 404)
    for (const [body, errors] of [
      [{ reason: 'r'.repeat(1001) }, { reason: ['Ensure this field has no more than 1000 characters.'] }],
      [{ reason: { text: 'rude' } }, { reason: ['Not a valid string.'] }],
      [[], { non_field_errors: ['Invalid data. Expected a dictionary, but got another type.'] }],
    ] as const) {
      const refused = await t.send('POST', url, body, tokens.staff)
      assert.equal(refused.statusCode, 400, JSON.stringify(body))
      assert.deepEqual(refused.json(), errors)
    }
    assert.equal((await t.json(`/api/comments/${target.id}/`, auth('staff'))).report_count, 2, 'refused reports count nothing')
  })

  test('staff hide a comment: it leaves listings but for staff and its author, and stops counting', async () => {
    const db = t.database.db
    const before = await commentCount(db, ids.canal)
    assert.equal((await t.send('POST', `/api/comments/${target.id}/hide/`, {}, tokens.carol)).statusCode, 403)
    assert.equal((await t.send('POST', `/api/comments/${target.id}/hide/`, {}, tokens.bob)).statusCode, 403, 'not even its author')
    const hidden = await t.send('POST', `/api/comments/${target.id}/hide/`, {}, tokens.staff)
    assert.equal(hidden.statusCode, 200, hidden.body)
    assert.equal(hidden.json().is_hidden, true)
    assert.equal(
      (await t.send('POST', `/api/comments/${target.id}/hide/`, {}, tokens.staff)).statusCode,
      200,
      'hiding twice changes nothing',
    )
    const after = await commentCount(db, ids.canal)
    assert.equal(after.count_comments, before.count_comments - 1)
    assert.equal(after.count_comments_suggestion, before.count_comments_suggestion - 1)
    const listed = (who?: string) => t.json(`/api/comments/?question=${ids.canal}&page_size=100`, who ? auth(who) : {}).then(idsOf)
    assert.ok(!(await listed()).includes(target.id))
    assert.ok(!(await listed('carol')).includes(target.id))
    assert.ok((await listed('bob')).includes(target.id))
    assert.ok((await listed('staff')).includes(target.id))
    assert.deepEqual(idsOf(await t.json(`/api/comments/?question=${ids.canal}&is_hidden=true`, auth('staff'))), [target.id])
    assert.equal((await t.get(`/api/comments/${target.id}/`)).statusCode, 404)
    assert.equal((await t.send('PATCH', `/api/comments/${target.id}/`, { text: 'x' }, tokens.carol)).statusCode, 404)
    const reply = await post({ text: 'Me too', question: ids.canal, parent: target.id }, 'carol')
    assert.deepEqual([reply.statusCode, reply.json()], [400, { parent: [`Invalid pk "${target.id}" - object does not exist.`] }])
    assert.equal((await t.send('POST', `/api/comments/${target.id}/report/`, {}, tokens.carol)).statusCode, 404)
    // The author still edits it; a subtype change on a hidden comment counts nowhere.
    const edited = await t.send('PATCH', `/api/comments/${target.id}/`, { subtype: 'reason' }, tokens.bob)
    assert.equal(edited.statusCode, 200)
    assert.deepEqual(await commentCount(db, ids.canal), after)
  })

  test('unhide counts it again under its current subtype', async () => {
    const before = await commentCount(t.database.db, ids.canal)
    const shown = await t.send('POST', `/api/comments/${target.id}/unhide/`, undefined, tokens.staff)
    assert.equal(shown.statusCode, 200)
    assert.equal(shown.json().is_hidden, false)
    const after = await commentCount(t.database.db, ids.canal)
    assert.equal(after.count_comments, before.count_comments + 1)
    assert.equal(after.count_comments_reason, before.count_comments_reason + 1)
    assert.ok(idsOf(await t.json(`/api/comments/?question=${ids.canal}&page_size=100`)).includes(target.id))
    assert.equal((await t.send('POST', '/api/comments/999999/unhide/', {}, tokens.staff)).statusCode, 404)
  })

  test('removing a hidden comment leaves the question counts alone', async () => {
    const hiddenOne = await comment('carol', { text: 'Spam', question: ids.canal })
    await t.send('POST', `/api/comments/${hiddenOne.id}/hide/`, {}, tokens.staff)
    const before = await commentCount(t.database.db, ids.canal)
    assert.equal((await t.send('DELETE', `/api/comments/${hiddenOne.id}/`, undefined, tokens.staff)).statusCode, 204)
    assert.deepEqual(await commentCount(t.database.db, ids.canal), before)
  })
})

describe("the question's comment counts, as the question shows them", () => {
  test('count_comments and count_comments_<subtype> follow create, reply, subtype edit, hide, unhide and delete', async () => {
    const q = (await insertQuestion(t.database.db, ids.bob, { question: 'Should buses be free?' })).id
    const counts = async () => {
      const question = await t.json(`/api/questions/${q}/`)
      return [question.count_comments, question.count_comments_info, question.count_comments_reason, question.count_comments_suggestion]
    }
    assert.deepEqual(await counts(), [0, 0, 0, 0])
    const reason = await comment('alice', { text: 'Fewer cars', question: q, subtype: 'reason' })
    const info = await comment('carol', { text: 'Tallinn did it', question: q })
    const reply = await comment('bob', { text: 'And Luxembourg', question: q, parent: info.id, subtype: 'info' })
    assert.deepEqual(await counts(), [3, 2, 1, 0])
    const edited = await t.send('PATCH', `/api/comments/${reason.id}/`, { subtype: 'suggestion' }, tokens.alice)
    assert.equal(edited.statusCode, 200, edited.body)
    assert.deepEqual(await counts(), [3, 2, 0, 1])
    assert.equal(
      (await t.send('PATCH', `/api/comments/${reason.id}/`, { subtype: 'suggestion', text: 'Far fewer cars' }, tokens.alice)).statusCode,
      200,
    )
    assert.deepEqual(await counts(), [3, 2, 0, 1], 'the same subtype again moves nothing')
    assert.equal((await t.send('PATCH', `/api/comments/${reason.id}/`, { subtype: 'rant' }, tokens.alice)).statusCode, 400)
    assert.deepEqual(await counts(), [3, 2, 0, 1])
    assert.equal((await t.send('POST', `/api/comments/${info.id}/hide/`, undefined, tokens.staff)).statusCode, 200)
    assert.deepEqual(await counts(), [2, 1, 0, 1], 'a hidden comment is not counted; its reply still is')
    assert.equal((await t.send('POST', `/api/comments/${info.id}/unhide/`, undefined, tokens.staff)).statusCode, 200)
    assert.deepEqual(await counts(), [3, 2, 0, 1])
    assert.equal((await t.send('DELETE', `/api/comments/${info.id}/`, undefined, tokens.carol)).statusCode, 204)
    assert.deepEqual(await counts(), [2, 1, 0, 1], 'its reply stays, moved up')
    assert.equal((await t.json(`/api/comments/${reply.id}/`)).parent, null)
    assert.equal((await t.send('DELETE', `/api/comments/${reason.id}/`, undefined, tokens.staff)).statusCode, 204)
    assert.deepEqual(await counts(), [1, 1, 0, 0])
    const listed = await t.json(`/api/comments/?question=${q}`)
    assert.equal(listed.count, 1, 'the listing and the count agree')
  })
})

test('after every operation above, stored counters equal the raw rows and the recompute', async () => {
  await assertCountersMatchRows(t.database.db)
})
