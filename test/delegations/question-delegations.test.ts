import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const questions: Record<string, number> = {}
const auth = (name: string) => ({ authorization: `Token ${users[name].token}` })
const post = (body: unknown, name = 'alice') => t.send('POST', '/api/question_delegation/', body, users[name].token)
const patch = (id: number, body: unknown, name = 'alice') => t.send('PATCH', `/api/question_delegation/${id}/`, body, users[name].token)
const remove = (id: number, name = 'alice') => t.send('DELETE', `/api/question_delegation/${id}/`, undefined, users[name].token)
const list = async (query = '', name = 'alice') => (await t.json(`/api/question_delegation/?page_size=100&${query}`, auth(name))).results
const allRows = () => t.database.db.selectFrom('question_delegations').selectAll().orderBy('id').execute()

async function assertRefused(response: { statusCode: number; json(): any; body: string }, field: string, message?: string) {
  assert.equal(response.statusCode, 400, response.body)
  assert.ok(field in response.json(), `the 400 names ${field}: ${response.body}`)
  if (message) assert.deepEqual(response.json()[field], [message])
}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['alice', 'bob', 'carol', 'author', 'stranger']) {
    const row = await insertUser(db, { username: `qd_${name}` })
    users[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const staff = await insertUser(db, { username: 'qd_staff', is_staff: true })
  users.staff = { id: staff.id, token: await t.tokenFor(staff.id) }
  users.inactive = { id: (await insertUser(db, { username: 'qd_inactive', is_active: false })).id, token: '' }
  questions.first = (await insertQuestion(db, users.author.id)).id
  questions.second = (await insertQuestion(db, users.author.id)).id
  questions.third = (await insertQuestion(db, users.author.id)).id
  questions.draft = (await insertQuestion(db, users.author.id, { publish: false })).id
  questions.ownDraft = (await insertQuestion(db, users.alice.id, { publish: false })).id
})
after(() => t.close())

describe('question delegations', () => {
  test('POST {question, trustee}: 201 with the item', async () => {
    const response = await post({ question: questions.first, trustee: users.bob.id })
    assert.equal(response.statusCode, 201, response.body)
    const item = response.json()
    assert.deepEqual(Object.keys(item).sort(), [
      'active',
      'created_at',
      'id',
      'question',
      'question_url',
      'revoked_at',
      'trustee',
      'trustee_info',
      'url',
      'user',
    ])
    assert.equal(item.url, `http://localhost:80/api/question_delegation/${item.id}/`)
    assert.equal(response.headers.location, item.url)
    assert.equal(item.question_url, `http://localhost:80/api/questions/${questions.first}/`)
    assert.equal(item.user, users.alice.id)
    assert.equal(item.question, questions.first)
    assert.equal(item.trustee, users.bob.id)
    assert.equal(item.trustee_info.username, 'qd_bob')
    assert.equal(item.active, true)
    assert.equal(item.revoked_at, null)
    assert.match(item.created_at, TIMESTAMP)
    // A block; and one's own unpublished question is fine.
    const block = await post({ question: questions.second, trustee: null })
    assert.equal(block.statusCode, 201, block.body)
    assert.equal(block.json().trustee, null)
    assert.equal(block.json().trustee_info, null)
    assert.equal((await post({ question: questions.ownDraft, trustee: users.bob.id })).statusCode, 201)
  })

  test('POST on a question with an active delegation replaces it; history keeps the old one', async () => {
    const [old] = await list(`question=${questions.first}`)
    const response = await post({ question: questions.first, trustee: users.carol.id })
    assert.equal(response.statusCode, 201, response.body)
    assert.notEqual(response.json().id, old.id)
    const history = await list(`question=${questions.first}&history=1&ordering=id`)
    assert.deepEqual(
      history.map((d: any) => [d.trustee, d.active]),
      [
        [users.bob.id, false],
        [users.carol.id, true],
      ],
    )
    assert.match(history[0].revoked_at, TIMESTAMP)
  })

  test('refusals name the field and change nothing; someone else’s draft does not exist', async () => {
    const before = await allRows()
    const cases: [unknown, string, string?][] = [
      [{ question: questions.draft, trustee: users.bob.id }, 'question', `Invalid pk "${questions.draft}" - object does not exist.`],
      [{ question: 999999, trustee: users.bob.id }, 'question', 'Invalid pk "999999" - object does not exist.'],
      [{ question: questions.third, trustee: 999999 }, 'trustee', 'Invalid pk "999999" - object does not exist.'],
      [{ question: questions.third, trustee: users.inactive.id }, 'trustee', `Invalid pk "${users.inactive.id}" - object does not exist.`],
      [{ question: questions.third, trustee: users.alice.id }, 'trustee', 'You cannot delegate to yourself.'],
      [{ question: 'third', trustee: users.bob.id }, 'question', 'Incorrect type. Expected pk value, received str.'],
      [{ question: questions.third, trustee: true }, 'trustee', 'Incorrect type. Expected pk value, received bool.'],
      [{ question: questions.third }, 'trustee', 'This field is required.'],
      [{ trustee: users.bob.id }, 'question', 'This field is required.'],
      [null, 'non_field_errors'],
    ]
    for (const [body, field, message] of cases) await assertRefused(await post(body), field, message)
    assert.deepEqual(await allRows(), before)
  })

  test('form-encoded bodies', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/question_delegation/',
      headers: { ...auth('alice'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `question=${questions.third}&trustee=`,
    })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().trustee, null)
  })

  test('listing: own, active by default; filters question, trustee, history; ordering', async () => {
    await post({ question: questions.first, trustee: users.alice.id }, 'bob')
    const items = await list()
    assert.ok(items.every((d: any) => d.user === users.alice.id && d.active))
    assert.deepEqual(
      items.map((d: any) => d.question).sort(),
      [questions.first, questions.second, questions.third, questions.ownDraft].sort(),
    )
    assert.deepEqual(
      (await list('ordering=id')).map((d: any) => d.id),
      items.map((d: any) => d.id).sort((a: number, b: number) => a - b),
    )
    assert.deepEqual(
      (await list('ordering=question')).map((d: any) => d.question),
      items.map((d: any) => d.question).sort((a: number, b: number) => a - b),
    )
    assert.equal((await list('history=true')).length, 5)
    assert.deepEqual(
      (await list(`trustee=${users.carol.id}`)).map((d: any) => d.question),
      [questions.first],
    )
    assert.deepEqual(
      (await list('', 'bob')).map((d: any) => d.trustee),
      [users.alice.id],
    )
    assert.equal((await t.get('/api/question_delegation/')).statusCode, 403)
  })

  test('detail: GET for the delegating user and staff, 404 for others; PATCH {trustee} replaces; DELETE revokes', async () => {
    const [current] = await list(`question=${questions.first}`)
    assert.equal((await t.json(`/api/question_delegation/${current.id}/`, auth('alice'))).id, current.id)
    assert.equal((await t.json(`/api/question_delegation/${current.id}/`, auth('staff'))).id, current.id)
    assert.equal((await t.get(`/api/question_delegation/${current.id}/`, auth('stranger'))).statusCode, 404)
    assert.equal((await t.get(`/api/question_delegation/${current.id}/`, auth('carol'))).statusCode, 404)
    assert.equal((await patch(current.id, { trustee: users.bob.id }, 'stranger')).statusCode, 403)
    const before = await allRows()
    await assertRefused(await patch(current.id, { trustee: users.alice.id }), 'trustee', 'You cannot delegate to yourself.')
    await assertRefused(await patch(current.id, { trustee: 999999 }), 'trustee')
    assert.deepEqual(await allRows(), before)
    // The same trustee, or nothing: the row as it is.
    assert.equal((await patch(current.id, { trustee: users.carol.id })).json().id, current.id)
    assert.equal((await patch(current.id, {})).json().id, current.id)
    const changed = await patch(current.id, { trustee: users.bob.id })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.notEqual(changed.json().id, current.id)
    assert.equal(changed.json().trustee, users.bob.id)
    assert.equal((await t.json(`/api/question_delegation/${current.id}/`, auth('alice'))).active, false)
    await assertRefused(await patch(current.id, { trustee: users.carol.id }), 'non_field_errors')
    assert.equal((await remove(changed.json().id, 'stranger')).statusCode, 403)
    assert.equal((await remove(changed.json().id)).statusCode, 204)
    const revoked = await t.json(`/api/question_delegation/${changed.json().id}/`, auth('alice'))
    assert.equal(revoked.active, false)
    assert.match(revoked.revoked_at, TIMESTAMP)
    await assertRefused(await remove(changed.json().id), 'non_field_errors')
    assert.deepEqual(await list(`question=${questions.first}`), [])
    assert.equal((await list(`question=${questions.first}&history=1`)).length, 3)
  })

  test('to_me: counts per question the trustee can see, of active delegations by active accounts', async () => {
    const db = t.database.db
    const trustee = await insertUser(db, { username: 'qd_trusted' })
    const token = await t.tokenFor(trustee.id)
    const givers = []
    for (let i = 0; i < 4; i++) {
      const row = await insertUser(db, { username: `qd_giver_${i}` })
      givers.push({ id: row.id, token: await t.tokenFor(row.id) })
    }
    const give = async (giver: { token: string }, question: number, to: number | null) => {
      const response = await t.send('POST', '/api/question_delegation/', { question, trustee: to }, giver.token)
      assert.equal(response.statusCode, 201, response.body)
      return response.json()
    }
    await give(givers[0], questions.second, trustee.id)
    await give(givers[1], questions.second, trustee.id)
    await give(givers[2], questions.second, trustee.id)
    await give(givers[0], questions.third, trustee.id)
    const revoked = await give(givers[1], questions.third, trustee.id)
    assert.equal((await t.send('DELETE', `/api/question_delegation/${revoked.id}/`, undefined, givers[1].token)).statusCode, 204)
    await give(givers[3], questions.third, null)
    await db.updateTable('users').set({ is_deleted: true }).where('id', '=', givers[2].id).execute()
    // A question that becomes unpublished is no longer counted for someone who cannot see it.
    await give(givers[0], questions.first, trustee.id)
    await db.updateTable('questions').set({ publish: false }).where('id', '=', questions.first).execute()
    assert.deepEqual(await t.json('/api/question_delegation/to_me/', { authorization: `Token ${token}` }), {
      results: [
        { question: questions.second, question_url: `http://localhost:80/api/questions/${questions.second}/`, count: 2 },
        { question: questions.third, question_url: `http://localhost:80/api/questions/${questions.third}/`, count: 1 },
      ],
    })
    await db.updateTable('questions').set({ publish: true }).where('id', '=', questions.first).execute()
    assert.equal((await t.get('/api/question_delegation/to_me/')).statusCode, 403)
  })

  test('the number of statements does not grow with the page size', async () => {
    const db = t.database.db
    const many = await insertUser(db, { username: 'qd_many' })
    const token = await t.tokenFor(many.id)
    for (let i = 0; i < 12; i++) {
      const question = await insertQuestion(db, users.author.id)
      const trustee = i % 3 === 0 ? null : [users.bob.id, users.carol.id][i % 2]
      assert.equal((await t.send('POST', '/api/question_delegation/', { question: question.id, trustee }, token)).statusCode, 201)
    }
    const small = await t.get('/api/question_delegation/?page_size=2&ordering=id', { authorization: `Token ${token}` })
    const large = await t.get('/api/question_delegation/?page_size=50', { authorization: `Token ${token}` })
    assert.equal(large.json().results.length, 12)
    assert.ok(small.json().results.some((d: any) => d.trustee !== null))
    assert.ok(Number(small.headers['x-query-count']) > 0)
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })
})
