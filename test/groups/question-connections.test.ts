import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const ids: Record<string, number> = {}
const auth = (name: string) => ({ authorization: `Token ${users[name].token}` })
const post = (body: unknown, name?: string) =>
  t.send('POST', '/api/group_question_connections/', body, name ? users[name].token : undefined)
const questionIds = async (query: string) =>
  (await t.json(`/api/questions/?page_size=100&${query}`)).results.map((q: any) => q.id).sort((a: number, b: number) => a - b)

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['owner', 'author', 'member', 'stranger']) {
    const row = await insertUser(db, { username: `qc_${name}` })
    users[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  ids.group = (await t.send('POST', '/api/groups/', { name: 'Transport Forum' }, users.owner.token)).json().id
  ids.other = (await t.send('POST', '/api/groups/', { name: 'Library Friends' }, users.stranger.token)).json().id
  await t.send('POST', `/api/groups/${ids.group}/join/`, {}, users.member.token)
  ids.buses = (await insertQuestion(db, users.author.id, { question: 'More night buses' })).id
  ids.trams = (await insertQuestion(db, users.author.id, { question: 'Bring back trams' })).id
  ids.draft = (await insertQuestion(db, users.author.id, { question: 'Draft about ferries', publish: false })).id
})
after(() => t.close())

describe('adding questions to a group', () => {
  test("the group's administrators add questions", async () => {
    const response = await post({ group: ids.group, question: ids.buses }, 'owner')
    assert.equal(response.statusCode, 201, response.body)
    const connection = response.json()
    assert.deepEqual(Object.keys(connection).sort(), [
      'active',
      'created_at',
      'group',
      'id',
      'modified_at',
      'question',
      'question_url',
      'url',
    ])
    assert.equal(connection.url, `http://localhost:80/api/group_question_connections/${connection.id}/`)
    assert.equal(connection.question_url, `http://localhost:80/api/questions/${ids.buses}/`)
    assert.equal(connection.active, true)
    assert.match(connection.modified_at, TIMESTAMP)
    ids.busesConnection = connection.id
    const inactive = await post({ group: ids.group, question: String(ids.trams), active: 'false' }, 'owner')
    assert.equal(inactive.json().active, false)
    ids.tramsConnection = inactive.json().id
    assert.equal((await post({ group: ids.other, question: ids.buses }, 'stranger')).statusCode, 201)
  })

  test('refusals', async () => {
    const cases: [Record<string, unknown>, string, number, unknown][] = [
      [
        { group: ids.group, question: ids.buses },
        'owner',
        400,
        { non_field_errors: ['The fields group, question must make a unique set.'] },
      ],
      [{ group: ids.group, question: ids.trams }, 'member', 403, { detail: "Only the group's administrators can add questions to it." }],
      [{ group: ids.group, question: 999999 }, 'owner', 400, { question: ['Invalid pk "999999" - object does not exist.'] }],
      [{ group: ids.group, question: ids.draft }, 'owner', 400, { question: [`Invalid pk "${ids.draft}" - object does not exist.`] }],
      [{ group: 999999, question: ids.buses }, 'owner', 400, { group: ['Invalid pk "999999" - object does not exist.'] }],
      [{ group: ids.group }, 'owner', 400, { question: ['This field is required.'] }],
    ]
    for (const [body, who, status, answer] of cases) {
      const response = await post(body, who)
      assert.equal(response.statusCode, status, `${JSON.stringify(body)} by ${who}`)
      assert.deepEqual(response.json(), answer)
    }
    assert.equal((await post({ group: ids.group, question: ids.trams })).statusCode, 403)
  })

  test('what the questions listing and the group read', async () => {
    assert.deepEqual(await questionIds(`group=${ids.group}`), [ids.buses])
    assert.deepEqual(await questionIds(`in_group_disabled=${ids.group}`), [ids.trams])
    assert.deepEqual(
      await questionIds(`in_group_all=${ids.group}`),
      [ids.buses, ids.trams].sort((a, b) => a - b),
    )
    assert.equal((await t.json(`/api/groups/${ids.group}/`)).question_count, 1)
  })
})

describe('listing', () => {
  test('filters by group, question and active', async () => {
    const pairs = async (query: string) =>
      (await t.json(`/api/group_question_connections/?page_size=100&${query}`)).results.map((c: any) => [c.group, c.question, c.active])
    assert.deepEqual(await pairs(`group=${ids.group}`), [
      [ids.group, ids.buses, true],
      [ids.group, ids.trams, false],
    ])
    assert.deepEqual(await pairs(`group=${ids.group}&active=false`), [[ids.group, ids.trams, false]])
    assert.deepEqual(await pairs(`group=${ids.group}&active=1`), [[ids.group, ids.buses, true]])
    assert.deepEqual(
      (await pairs(`question=${ids.buses}&ordering=-group`)).map((p: any[]) => p[0]),
      [ids.group, ids.other].sort((a, b) => b - a),
    )
    const bad = await t.get('/api/group_question_connections/?active=perhaps')
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(bad.json(), { active: ['Must be a valid boolean.'] })
  })

  test('a connection to an unpublished question shows to its author and staff only', async () => {
    await t.database.db.insertInto('group_question_connections').values({ group_id: ids.group, question_id: ids.draft }).execute()
    const count = async (headers: Record<string, string> = {}) =>
      (await t.json(`/api/group_question_connections/?question=${ids.draft}`, headers)).count
    assert.equal(await count(), 0)
    assert.equal(await count(auth('owner')), 0)
    assert.equal(await count(auth('author')), 1)
    assert.equal((await t.json(`/api/groups/${ids.group}/`)).question_count, 1)
  })

  test('the seeded connections, a constant number of statements a page', async () => {
    const small = await t.get('/api/group_question_connections/?page_size=2')
    const large = await t.get('/api/group_question_connections/?page_size=50')
    assert.ok(large.json().results.length > 5, 'more rows than the small page')
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
    assert.equal((await t.json(`/api/group_question_connections/${ids.busesConnection}/`)).question, ids.buses)
    assert.equal((await t.get('/api/group_question_connections/999999/')).statusCode, 404)
  })
})

describe('changing and removing', () => {
  test('administrators disable and enable questions; others cannot', async () => {
    const url = `/api/group_question_connections/${ids.tramsConnection}/`
    assert.equal((await t.send('PATCH', url, { active: true }, users.member.token)).statusCode, 403)
    assert.equal((await t.send('PATCH', url, { active: true })).statusCode, 403)
    const enabled = await t.send('PATCH', url, { active: 'true' }, users.owner.token)
    assert.equal(enabled.statusCode, 200)
    assert.equal(enabled.json().active, true)
    assert.deepEqual(
      await questionIds(`group=${ids.group}`),
      [ids.buses, ids.trams].sort((a, b) => a - b),
    )
    const missing = await t.send('PUT', url, {}, users.owner.token)
    assert.deepEqual(missing.json(), { active: ['This field is required.'] })
    const disabled = await t.send('PUT', url, { active: false }, users.owner.token)
    assert.equal(disabled.json().active, false)
    assert.deepEqual(await questionIds(`in_group_disabled=${ids.group}`), [ids.trams])
    assert.equal((await t.send('PATCH', url, { active: 'sometimes' }, users.owner.token)).statusCode, 400)
  })

  test('administrators take questions out of the group', async () => {
    const url = `/api/group_question_connections/${ids.tramsConnection}/`
    assert.equal((await t.send('DELETE', url, undefined, users.stranger.token)).statusCode, 403)
    assert.equal((await t.send('DELETE', url, undefined, users.owner.token)).statusCode, 204)
    assert.equal((await t.get(url)).statusCode, 404)
    assert.deepEqual(await questionIds(`in_group_all=${ids.group}`), [ids.buses])
  })
})
