import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertCountersMatchRecompute } from './counters.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const groups: Record<string, any> = {}

const GROUP_FIELDS = [
  'created_at',
  'description',
  'id',
  'image',
  'is_private',
  'join_policy',
  'member_count',
  'modified_at',
  'my_join_request',
  'my_membership',
  'name',
  'owner',
  'question_count',
  'questions_link',
  'slug',
  'url',
].sort()

async function person(name: string, values: Record<string, unknown> = {}) {
  const row = await insertUser(t.database.db, { username: name, ...values })
  users[name] = { id: row.id, token: await t.tokenFor(row.id) }
}

const auth = (name: string) => ({ authorization: `Token ${users[name].token}` })
const groupAs = (id: number, name?: string) => t.json(`/api/groups/${id}/`, name ? auth(name) : {})
const countOf = async (userId: number) =>
  (await t.database.db.selectFrom('users').select('count_group_memberships').where('id', '=', userId).executeTakeFirstOrThrow())
    .count_group_memberships

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin']) await person(name)
  await person('staffer', { is_staff: true })
  const create = async (name: string, body: Record<string, unknown>) => {
    const response = await t.send('POST', '/api/groups/', body, users[name].token)
    assert.equal(response.statusCode, 201, response.body)
    return response.json()
  }
  groups.allotments = await create('alice', {
    name: 'Riverside Allotments',
    description: 'Growing vegetables by the river',
    image: 'https://images.example.org/allotments.png',
  })
  groups.readers = await create('alice', { name: 'Quiet Readers', is_private: true })
  groups.watch = await create('bob', { name: 'Council Watch', join_policy: 'invite', description: 'Keeping an eye on the budget' })
})
after(() => t.close())

describe('creating a group', () => {
  test('the creator owns it and is its first administrator', async () => {
    const group = groups.allotments
    assert.deepEqual(Object.keys(group).sort(), GROUP_FIELDS)
    assert.equal(group.name, 'Riverside Allotments')
    assert.equal(group.slug, 'riverside-allotments')
    assert.equal(group.url, `http://localhost:80/api/groups/${group.id}/`)
    assert.equal(group.questions_link, `http://localhost:80/api/questions/?group=${group.id}`)
    assert.equal(group.owner, users.alice.id)
    assert.equal(group.join_policy, 'open')
    assert.equal(group.is_private, false)
    assert.equal(group.member_count, 1)
    assert.equal(group.question_count, 0)
    assert.equal(group.my_membership.role, 'admin')
    assert.match(group.my_membership.created_at, TIMESTAMP)
    assert.equal(group.my_join_request, null)
    assert.match(group.created_at, TIMESTAMP)
    assert.equal(groups.readers.join_policy, 'request')
    assert.equal(groups.readers.is_private, true)
    assert.equal(groups.watch.join_policy, 'invite')
    const membership = await t.json(`/api/group_memberships/?group=${group.id}`)
    assert.deepEqual(
      membership.results.map((m: any) => [m.user, m.role]),
      [[users.alice.id, 'admin']],
    )
  })

  test('a second group of the same name gets the next free slug; a given slug is kept', async () => {
    const second = (await t.send('POST', '/api/groups/', { name: 'Riverside  allotments!' }, users.erin.token)).json()
    assert.equal(second.slug, 'riverside-allotments-2')
    const chosen = await t.send('POST', '/api/groups/', { name: 'Chosen', slug: 'my_Chosen-slug' }, users.erin.token)
    assert.equal(chosen.statusCode, 201)
    assert.equal(chosen.json().slug, 'my_Chosen-slug')
    const nonLatin = (await t.send('POST', '/api/groups/', { name: '読書会' }, users.erin.token)).json()
    assert.match(nonLatin.slug, /^group(-\d+)?$/)
  })

  test('form-encoded bodies with DRF booleans work', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/groups/',
      headers: { ...auth('erin'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=Form+Group&is_private=on',
    })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().join_policy, 'request')
  })

  test('bad input answers a 400 naming the field and creates nothing', async () => {
    const before = (await t.json('/api/groups/')).count
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { name: ['This field is required.'] }],
      [{ name: '   ' }, { name: ['This field may not be blank.'] }],
      [{ name: 'x'.repeat(101) }, { name: ['Ensure this field has no more than 100 characters.'] }],
      [{ name: 'Fine', join_policy: 'secret' }, { join_policy: ['"secret" is not a valid choice.'] }],
      [{ name: 'Fine', slug: 'has space' }, { slug: ['Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'] }],
      [{ name: 'Fine', slug: 'riverside-allotments' }, { slug: ['group with this slug already exists.'] }],
      [{ name: 'Fine', image: 'javascript:alert(1)' }, { image: ['Enter a valid URL.'] }],
      [{ name: 'Fine', is_private: 'maybe' }, { is_private: ['Must be a valid boolean.'] }],
    ]
    for (const [body, errors] of cases) {
      const response = await t.send('POST', '/api/groups/', body, users.erin.token)
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.deepEqual(response.json(), errors, JSON.stringify(body))
    }
    const list = await t.send('POST', '/api/groups/', [1, 2], users.erin.token)
    assert.equal(list.statusCode, 400)
    assert.deepEqual(Object.keys(list.json()), ['non_field_errors'])
    const malformed = await t.request({
      method: 'POST',
      url: '/api/groups/',
      headers: { ...auth('erin'), 'content-type': 'application/json' },
      payload: '{"name": ',
    })
    assert.equal(malformed.statusCode, 400)
    assert.match(malformed.json().detail, /^JSON parse error/)
    assert.equal((await t.json('/api/groups/')).count, before)
  })

  test('without credentials: 403', async () => {
    const response = await t.send('POST', '/api/groups/', { name: 'Anonymous' })
    assert.equal(response.statusCode, 403)
    assert.deepEqual(response.json(), { detail: 'Authentication credentials were not provided.' })
  })
})

describe('reading groups', () => {
  test('my_membership is truthy for members only; anonymous callers read groups too', async () => {
    const id = groups.allotments.id
    assert.equal((await groupAs(id)).my_membership, null)
    assert.equal((await groupAs(id, 'carol')).my_membership, null)
    assert.ok((await groupAs(id, 'alice')).my_membership)
    const listed = await t.json(`/api/groups/?id=${id}`, auth('alice'))
    assert.ok(listed.results[0].my_membership)
  })

  test('the seeded groups carry their stored member counts', async () => {
    const { results } = await t.json('/api/groups/?page_size=100')
    for (const group of results) {
      const { count } = await t.json(`/api/group_memberships/?group=${group.id}`)
      assert.equal(group.member_count, count, group.name)
      assert.deepEqual(Object.keys(group).sort(), GROUP_FIELDS)
    }
  })

  test('filters tell the groups apart', async () => {
    const ids = async (query: string) =>
      (await t.json(`/api/groups/?page_size=100&${query}`)).results.map((g: any) => g.id).sort((a: number, b: number) => a - b)
    const { allotments, readers, watch } = groups
    assert.deepEqual(await ids('search=vegetables'), [allotments.id])
    assert.deepEqual(await ids('search=budget council'), [watch.id])
    assert.deepEqual(await ids('search=budget,readers'), [])
    assert.deepEqual(await ids(`id=${readers.id}`), [readers.id])
    assert.deepEqual(
      await ids(`id__in=${readers.id},${watch.id}`),
      [readers.id, watch.id].sort((a, b) => a - b),
    )
    assert.deepEqual(await ids('slug=quiet-readers'), [readers.id])
    assert.deepEqual(await ids(`owner=${users.bob.id}`), [watch.id])
    assert.deepEqual(await ids(`member=${users.bob.id}`), [watch.id])
    const invite = await ids('join_policy=invite')
    assert.ok(invite.includes(watch.id) && !invite.includes(allotments.id) && !invite.includes(readers.id))
  })

  test('ordering by name and by member count', async () => {
    const byName = (await t.json('/api/groups/?page_size=100&ordering=-name')).results.map((g: any) => g.name)
    assert.deepEqual(
      byName,
      [...byName].sort((a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0)),
    )
    const byMembers = (await t.json('/api/groups/?page_size=100&ordering=-member_count')).results.map((g: any) => g.member_count)
    assert.deepEqual(
      byMembers,
      [...byMembers].sort((a: number, b: number) => b - a),
    )
  })

  test('a page costs the same number of statements whatever its size', async () => {
    const small = await t.get('/api/groups/?page_size=2', auth('alice'))
    const large = await t.get('/api/groups/?page_size=50', auth('alice'))
    assert.ok(large.json().results.length > 5, 'more rows than the small page')
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })

  test('OPTIONS describes the create body; methods a URL lacks answer 405 with Allow', async () => {
    const options = await t.request({ method: 'OPTIONS', url: '/api/groups/', headers: auth('alice') })
    assert.equal(options.statusCode, 200)
    assert.equal(options.json().name, 'Group List')
    assert.equal(options.json().actions.POST.name.required, true)
    assert.equal(options.headers.allow, 'GET, POST, HEAD, OPTIONS')
    const wrong = await t.get(`/api/groups/${groups.allotments.id}/join/`, auth('alice'))
    assert.equal(wrong.statusCode, 405)
    assert.equal(wrong.headers.allow, 'POST, OPTIONS')
    assert.equal((await t.get(`/api/groups/${groups.allotments.id}/`)).headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  })

  test('unknown ids: 404', async () => {
    for (const url of ['/api/groups/999999/', '/api/groups/abc/']) {
      const response = await t.get(url)
      assert.equal(response.statusCode, 404)
      assert.deepEqual(response.json(), { detail: 'Not found.' })
    }
  })

  test('question_count counts the active, published questions of the group', async () => {
    const db = t.database.db
    const group = groups.readers.id
    const active = await insertQuestion(db, users.alice.id)
    const disabled = await insertQuestion(db, users.alice.id)
    const draft = await insertQuestion(db, users.alice.id, { publish: false })
    await db
      .insertInto('group_question_connections')
      .values([
        { group_id: group, question_id: active.id, active: true },
        { group_id: group, question_id: disabled.id, active: false },
        { group_id: group, question_id: draft.id, active: true },
      ])
      .execute()
    assert.equal((await groupAs(group)).question_count, 1)
    assert.equal((await t.json(`/api/questions/?group=${group}`)).count, 1)
  })
})

describe('editing and deleting', () => {
  test('the owner edits; others are refused; staff may', async () => {
    const id = groups.allotments.id
    const patched = await t.send(
      'PATCH',
      `/api/groups/${id}/`,
      { description: 'Vegetables and flowers', join_policy: 'request' },
      users.alice.token,
    )
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().description, 'Vegetables and flowers')
    assert.equal(patched.json().join_policy, 'request')
    assert.equal(patched.json().name, 'Riverside Allotments', 'fields not sent keep their value')
    assert.equal((await t.send('PATCH', `/api/groups/${id}/`, { name: 'Mine now' }, users.bob.token)).statusCode, 403)
    assert.equal((await t.send('PATCH', `/api/groups/${id}/`, { name: 'Mine now' })).statusCode, 403)
    const staff = await t.send('PATCH', `/api/groups/${id}/`, { is_private: false }, users.staffer.token)
    assert.equal(staff.statusCode, 200)
    assert.equal(staff.json().join_policy, 'open')
    assert.equal((await t.send('PATCH', '/api/groups/999999/', {}, users.alice.token)).statusCode, 404)
  })

  test('PUT requires the name', async () => {
    const id = groups.allotments.id
    const missing = await t.send('PUT', `/api/groups/${id}/`, { description: 'x' }, users.alice.token)
    assert.equal(missing.statusCode, 400)
    assert.deepEqual(missing.json(), { name: ['This field is required.'] })
    const full = await t.send('PUT', `/api/groups/${id}/`, { name: 'Riverside Allotments', description: 'Vegetables' }, users.alice.token)
    assert.equal(full.statusCode, 200)
    assert.equal(full.json().description, 'Vegetables')
  })

  test('the group is handed over to a member only', async () => {
    const response = await t.send('POST', '/api/groups/', { name: 'Handover' }, users.carol.token)
    const id = response.json().id
    const stranger = await t.send('PATCH', `/api/groups/${id}/`, { owner: users.dave.id }, users.carol.token)
    assert.equal(stranger.statusCode, 400)
    assert.deepEqual(stranger.json(), { owner: ['The new owner must be a member of the group.'] })
    assert.deepEqual((await t.send('PATCH', `/api/groups/${id}/`, { owner: 999999 }, users.carol.token)).json(), {
      owner: ['Invalid pk "999999" - object does not exist.'],
    })
    assert.equal((await t.send('POST', `/api/groups/${id}/join/`, undefined, users.dave.token)).statusCode, 201)
    const handed = await t.send('PATCH', `/api/groups/${id}/`, { owner: users.dave.id }, users.carol.token)
    assert.equal(handed.statusCode, 200)
    assert.equal(handed.json().owner, users.dave.id)
    assert.equal((await groupAs(id, 'dave')).my_membership.role, 'admin')
    assert.equal(
      (await t.send('PATCH', `/api/groups/${id}/`, { name: 'Back' }, users.carol.token)).statusCode,
      403,
      'the former owner no longer edits',
    )
  })

  test('deleting a group removes its memberships and uncounts them; its questions stay', async () => {
    const db = t.database.db
    const created = (await t.send('POST', '/api/groups/', { name: 'Short Lived' }, users.erin.token)).json()
    await t.send('POST', `/api/groups/${created.id}/join/`, {}, users.dave.token)
    const question = await insertQuestion(db, users.erin.id, { group_id: created.id })
    await db.insertInto('group_question_connections').values({ group_id: created.id, question_id: question.id }).execute()
    const erinBefore = await countOf(users.erin.id)
    const daveBefore = await countOf(users.dave.id)
    assert.equal(
      (await t.send('DELETE', `/api/groups/${created.id}/`, undefined, users.dave.token)).statusCode,
      403,
      'members do not delete',
    )
    const response = await t.send('DELETE', `/api/groups/${created.id}/`, undefined, users.erin.token)
    assert.equal(response.statusCode, 204)
    assert.equal(response.body, '')
    assert.equal((await t.get(`/api/groups/${created.id}/`)).statusCode, 404)
    assert.equal(await countOf(users.erin.id), erinBefore - 1)
    assert.equal(await countOf(users.dave.id), daveBefore - 1)
    const kept = await t.json(`/api/questions/${question.id}/`)
    assert.equal(kept.group, null)
    await assertCountersMatchRecompute(db)
  })
})

describe('joining and leaving', () => {
  test('an open group: no body, {} and {default_share_email} as the clients send them', async () => {
    const id = groups.watch.id
    await t.send('PATCH', `/api/groups/${id}/`, { join_policy: 'open' }, users.bob.token)
    const before = await countOf(users.carol.id)
    // ReactLite JoinGroupNew: axios post without data.
    const first = await t.send('POST', `/api/groups/${id}/join/`, undefined, users.carol.token)
    assert.equal(first.statusCode, 201, first.body)
    assert.ok(first.json().my_membership)
    assert.equal(first.json().member_count, 2)
    assert.equal(await countOf(users.carol.id), before + 1)
    // OLD GroupFlow: '{}' as JSON.
    const again = await t.send('POST', `/api/groups/${id}/join/`, {}, users.carol.token)
    assert.equal(again.statusCode, 200)
    assert.equal(again.json().member_count, 2)
    assert.equal(await countOf(users.carol.id), before + 1)
    // ReactLite JoinGroupDialog: {default_share_email}.
    const sharing = await t.send('POST', `/api/groups/${id}/join/`, { default_share_email: true }, users.carol.token)
    assert.equal(sharing.statusCode, 200)
    assert.equal(sharing.json().my_membership.share_email, true)
    const dave = await t.send('POST', `/api/groups/${id}/join/`, { default_share_email: true }, users.dave.token)
    assert.equal(dave.statusCode, 201)
    assert.equal(dave.json().my_membership.share_email, true)
    assert.equal((await t.send('POST', `/api/groups/${id}/join/`, {})).statusCode, 403)
    assert.equal((await t.send('POST', '/api/groups/999999/join/', {}, users.dave.token)).statusCode, 404)
  })

  test('a group taking requests: joining asks to join, once', async () => {
    const id = groups.readers.id
    const first = await t.send('POST', `/api/groups/${id}/join/`, { message: 'I read a lot' }, users.carol.token)
    assert.equal(first.statusCode, 201)
    assert.equal(first.json().my_membership, null)
    assert.equal(first.json().my_join_request.status, 'pending')
    assert.equal(first.json().member_count, 1)
    const again = await t.send('POST', `/api/groups/${id}/join/`, undefined, users.carol.token)
    assert.equal(again.statusCode, 200)
    assert.equal(again.json().my_join_request.id, first.json().my_join_request.id)
    const requests = await t.json(`/api/group_join_requests/?group=${id}`, auth('alice'))
    assert.deepEqual(
      requests.results.map((r: any) => [r.user, r.status, r.message]),
      [[users.carol.id, 'pending', 'I read a lot']],
    )
  })

  test('an invitation-only group refuses, unless the caller is invited', async () => {
    const created = (await t.send('POST', '/api/groups/', { name: 'Inner Circle', join_policy: 'invite' }, users.alice.token)).json()
    const refused = await t.send('POST', `/api/groups/${created.id}/join/`, {}, users.erin.token)
    assert.equal(refused.statusCode, 403)
    assert.deepEqual(refused.json(), { detail: 'This group can only be joined by invitation.' })
    const invite = await t.send('POST', '/api/group_invites/', { group: created.id, user: users.erin.id }, users.alice.token)
    assert.equal(invite.statusCode, 201)
    const joined = await t.send('POST', `/api/groups/${created.id}/join/`, {}, users.erin.token)
    assert.equal(joined.statusCode, 201)
    assert.ok(joined.json().my_membership)
    assert.equal((await t.json(`/api/group_invites/${invite.json().id}/`, auth('erin'))).status, 'accepted')
  })

  test('leaving: members leave, pending requests are withdrawn, the owner stays', async () => {
    const id = groups.watch.id
    const before = await countOf(users.dave.id)
    const left = await t.send('POST', `/api/groups/${id}/leave/`, undefined, users.dave.token)
    assert.equal(left.statusCode, 200)
    assert.equal(left.json().my_membership, null)
    assert.equal(await countOf(users.dave.id), before - 1)
    assert.equal((await t.send('POST', `/api/groups/${id}/leave/`, {}, users.dave.token)).statusCode, 200, 'leaving twice is fine')
    const withdrawn = await t.send('POST', `/api/groups/${groups.readers.id}/leave/`, {}, users.carol.token)
    assert.equal(withdrawn.json().my_join_request, null)
    const owner = await t.send('POST', `/api/groups/${id}/leave/`, {}, users.bob.token)
    assert.equal(owner.statusCode, 400)
    assert.deepEqual(owner.json(), {
      non_field_errors: ["The group's owner cannot leave it; hand the group over to another member first."],
    })
  })

  test('concurrent joins, leaves and a deletion keep the counters right', async () => {
    const names = ['bob', 'carol', 'dave', 'erin']
    const first = (await t.send('POST', '/api/groups/', { name: 'Busy Group' }, users.alice.token)).json()
    const joins = await Promise.all(
      [...names, ...names].map((name) => t.send('POST', `/api/groups/${first.id}/join/`, {}, users[name].token)),
    )
    assert.deepEqual(joins.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 201, 201, 201, 201])
    assert.equal((await groupAs(first.id)).member_count, 5)
    const second = (await t.send('POST', '/api/groups/', { name: 'Doomed Group' }, users.alice.token)).json()
    await t.send('POST', `/api/groups/${second.id}/join/`, {}, users.bob.token)
    const racing = await Promise.all([
      t.send('POST', `/api/groups/${second.id}/join/`, {}, users.carol.token),
      t.send('POST', `/api/groups/${second.id}/leave/`, {}, users.bob.token),
      t.send('DELETE', `/api/groups/${second.id}/`, undefined, users.alice.token),
      t.send('POST', `/api/groups/${second.id}/join/`, {}, users.dave.token),
      t.send('POST', `/api/groups/${first.id}/leave/`, {}, users.erin.token),
    ])
    for (const response of racing) assert.ok([200, 201, 204, 404].includes(response.statusCode), `${response.statusCode} ${response.body}`)
    await assertCountersMatchRecompute(t.database.db)
  })

  test('stored counters equal a recomputation', async () => {
    await assertCountersMatchRecompute(t.database.db)
  })
})
