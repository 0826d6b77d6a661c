import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertCountersMatchRecompute } from './counters.ts'

let t: TestApp
const users: Record<string, { id: number; token: string; email: string }> = {}
let garden = 0
let choir = 0
const membershipOf = async (groupId: number, name: string) =>
  (await t.json(`/api/group_memberships/?group=${groupId}&user=${users[name].id}`, auth('owner'))).results[0]
const auth = (name: string) => ({ authorization: `Token ${users[name].token}` })

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['owner', 'admin', 'member', 'sharer', 'outsider']) {
    const row = await insertUser(t.database.db, { username: `m_${name}`, first_name: name })
    users[name] = { id: row.id, token: await t.tokenFor(row.id), email: row.email! }
  }
  const staff = await insertUser(t.database.db, { is_staff: true })
  users.staff = { id: staff.id, token: await t.tokenFor(staff.id), email: staff.email! }
  garden = (await t.send('POST', '/api/groups/', { name: 'Community Garden' }, users.owner.token)).json().id
  choir = (await t.send('POST', '/api/groups/', { name: 'Town Choir' }, users.outsider.token)).json().id
  for (const name of ['admin', 'member']) await t.send('POST', `/api/groups/${garden}/join/`, {}, users[name].token)
  await t.send('POST', `/api/groups/${garden}/join/`, { default_share_email: true }, users.sharer.token)
  await t.send('POST', `/api/groups/${choir}/join/`, {}, users.member.token)
  const admin = await membershipOf(garden, 'admin')
  const promoted = await t.send('PATCH', `/api/group_memberships/${admin.id}/`, { role: 'admin' }, users.owner.token)
  assert.equal(promoted.statusCode, 200, promoted.body)
})
after(() => t.close())

describe('listing memberships', () => {
  test('each membership with its member', async () => {
    const { results, count } = await t.json(`/api/group_memberships/?group=${garden}`)
    assert.equal(count, 4)
    const first = results[0]
    assert.deepEqual(Object.keys(first).sort(), ['created_at', 'email', 'group', 'id', 'role', 'share_email', 'url', 'user', 'user_info'])
    assert.equal(first.url, `http://localhost:80/api/group_memberships/${first.id}/`)
    assert.equal(first.user, users.owner.id, 'in order of joining')
    assert.equal(first.role, 'admin')
    assert.deepEqual(Object.keys(first.user_info).sort(), ['first_name', 'id', 'last_name', 'photo', 'username'])
    assert.equal(first.user_info.username, 'm_owner')
    assert.match(first.created_at, TIMESTAMP)
  })

  test('filters by group, user and role', async () => {
    const users_ = async (query: string) =>
      (await t.json(`/api/group_memberships/?page_size=100&${query}`)).results.map((m: any) => m.user).sort((a: number, b: number) => a - b)
    const sorted = (...ids: number[]) => ids.sort((a, b) => a - b)
    assert.deepEqual(await users_(`group=${garden}&role=admin`), sorted(users.owner.id, users.admin.id))
    assert.deepEqual(await users_(`group=${choir}`), sorted(users.outsider.id, users.member.id))
    const mine = (await t.json(`/api/group_memberships/?user=${users.member.id}`)).results
      .map((m: any) => m.group)
      .sort((a: number, b: number) => a - b)
    assert.deepEqual(mine, sorted(garden, choir))
  })

  test("a shared e-mail address reaches the group's administrators and the member only", async () => {
    const email = async (viewer?: string) =>
      (await t.json(`/api/group_memberships/?group=${garden}&user=${users.sharer.id}`, viewer ? auth(viewer) : {})).results[0].email
    assert.equal(await email('owner'), users.sharer.email)
    assert.equal(await email('admin'), users.sharer.email)
    assert.equal(await email('sharer'), users.sharer.email)
    assert.equal(await email('staff'), users.sharer.email)
    assert.equal(await email('member'), null)
    assert.equal(await email(), null)
    const notShared = (await t.json(`/api/group_memberships/?group=${garden}&user=${users.member.id}`, auth('owner'))).results[0]
    assert.equal(notShared.email, null)
  })

  test('a page costs the same number of statements whatever its size', async () => {
    const small = await t.get('/api/group_memberships/?page_size=2', auth('owner'))
    const large = await t.get('/api/group_memberships/?page_size=60', auth('owner'))
    assert.ok(large.json().results.length > 10, 'more rows than the small page')
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })

  test('one membership; unknown ids 404', async () => {
    const membership = await membershipOf(garden, 'member')
    assert.equal((await t.json(`/api/group_memberships/${membership.id}/`)).user, users.member.id)
    assert.equal((await t.get('/api/group_memberships/999999/')).statusCode, 404)
  })
})

describe('changing memberships', () => {
  test('administrators change roles; members cannot; the owner stays an administrator', async () => {
    const member = await membershipOf(garden, 'member')
    const self = await t.send('PATCH', `/api/group_memberships/${member.id}/`, { role: 'admin' }, users.member.token)
    assert.equal(self.statusCode, 403)
    const bad = await t.send('PATCH', `/api/group_memberships/${member.id}/`, { role: 'boss' }, users.admin.token)
    assert.deepEqual(bad.json(), { role: ['"boss" is not a valid choice.'] })
    const stranger = await t.send('PATCH', `/api/group_memberships/${member.id}/`, { role: 'admin' }, users.outsider.token)
    assert.equal(stranger.statusCode, 403)
    const owner = await membershipOf(garden, 'owner')
    const demote = await t.send('PATCH', `/api/group_memberships/${owner.id}/`, { role: 'member' }, users.admin.token)
    assert.equal(demote.statusCode, 400)
    assert.deepEqual(demote.json(), { role: ["The group's owner stays an administrator."] })
    const promoted = await t.send('PATCH', `/api/group_memberships/${member.id}/`, { role: 'admin' }, users.admin.token)
    assert.equal(promoted.json().role, 'admin')
    const back = await t.send('PATCH', `/api/group_memberships/${member.id}/`, { role: 'member' }, users.staff.token)
    assert.equal(back.json().role, 'member')
  })

  test('only the member changes share_email', async () => {
    const member = await membershipOf(garden, 'member')
    assert.equal((await t.send('PATCH', `/api/group_memberships/${member.id}/`, { share_email: true }, users.admin.token)).statusCode, 403)
    const own = await t.send('PATCH', `/api/group_memberships/${member.id}/`, { share_email: 'true' }, users.member.token)
    assert.equal(own.statusCode, 200)
    assert.equal(own.json().share_email, true)
    assert.equal(own.json().email, users.member.email)
  })

  test('members leave, administrators remove, strangers cannot; the owner cannot leave', async () => {
    const count = async (name: string) =>
      (await t.database.db.selectFrom('users').select('count_group_memberships').where('id', '=', users[name].id).executeTakeFirstOrThrow())
        .count_group_memberships
    const choirMember = (await t.json(`/api/group_memberships/?group=${choir}&user=${users.member.id}`)).results[0]
    assert.equal((await t.send('DELETE', `/api/group_memberships/${choirMember.id}/`, undefined, users.owner.token)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/group_memberships/${choirMember.id}/`)).statusCode, 403)
    const before = await count('member')
    assert.equal((await t.send('DELETE', `/api/group_memberships/${choirMember.id}/`, undefined, users.member.token)).statusCode, 204)
    assert.equal(await count('member'), before - 1)
    assert.equal((await t.json(`/api/groups/${choir}/`)).member_count, 1)

    const sharer = await membershipOf(garden, 'sharer')
    assert.equal((await t.send('DELETE', `/api/group_memberships/${sharer.id}/`, undefined, users.admin.token)).statusCode, 204)
    assert.equal((await t.get(`/api/group_memberships/${sharer.id}/`)).statusCode, 404)
    assert.equal((await t.send('DELETE', `/api/group_memberships/${sharer.id}/`, undefined, users.admin.token)).statusCode, 404)

    const owner = await membershipOf(garden, 'owner')
    const refused = await t.send('DELETE', `/api/group_memberships/${owner.id}/`, undefined, users.owner.token)
    assert.equal(refused.statusCode, 400)
    assert.equal((await t.json(`/api/groups/${garden}/`)).member_count, 3)
    await assertCountersMatchRecompute(t.database.db)
  })
})
