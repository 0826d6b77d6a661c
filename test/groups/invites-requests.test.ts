import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertCountersMatchRecompute } from './counters.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const group: Record<string, number> = {}
const auth = (name: string) => ({ authorization: `Token ${users[name].token}` })
const post = (url: string, body: unknown, name?: string) => t.send('POST', url, body, name ? users[name].token : undefined)
const isMember = async (groupId: number, name: string) => (await t.json(`/api/groups/${groupId}/`, auth(name))).my_membership !== null

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['owner', 'admin', 'invitee', 'other', 'requester', 'second', 'stranger']) {
    const row = await insertUser(t.database.db, { username: `ir_${name}` })
    users[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const staff = await insertUser(t.database.db, { is_staff: true })
  users.staff = { id: staff.id, token: await t.tokenFor(staff.id) }
  group.club = (await post('/api/groups/', { name: 'Invite Club', join_policy: 'invite' }, 'owner')).json().id
  group.society = (await post('/api/groups/', { name: 'Request Society', join_policy: 'request' }, 'owner')).json().id
  group.open = (await post('/api/groups/', { name: 'Open House' }, 'owner')).json().id
  // The admin is invited, accepts, and is made an administrator of the club.
  const invite = (await post('/api/group_invites/', { group: group.club, user: users.admin.id }, 'owner')).json()
  await post(`/api/group_invites/${invite.id}/accept/`, undefined, 'admin')
  const membership = (await t.json(`/api/group_memberships/?group=${group.club}&user=${users.admin.id}`)).results[0]
  await t.send('PATCH', `/api/group_memberships/${membership.id}/`, { role: 'admin' }, users.owner.token)
})
after(() => t.close())

describe('invitations', () => {
  test('an administrator invites; the invitation reads as the invitee sees it', async () => {
    const response = await post('/api/group_invites/', { group: group.club, user: users.invitee.id }, 'admin')
    assert.equal(response.statusCode, 201, response.body)
    const invite = response.json()
    assert.deepEqual(Object.keys(invite).sort(), [
      'created_at',
      'email',
      'group',
      'id',
      'invited_by',
      'modified_at',
      'status',
      'url',
      'user',
      'user_info',
    ])
    assert.equal(invite.url, `http://localhost:80/api/group_invites/${invite.id}/`)
    assert.equal(invite.group, group.club)
    assert.equal(invite.user, users.invitee.id)
    assert.equal(invite.user_info.username, 'ir_invitee')
    assert.equal(invite.invited_by, users.admin.id)
    assert.equal(invite.status, 'pending')
    assert.equal(invite.email, null)
    assert.match(invite.created_at, TIMESTAMP)
    assert.equal((await t.json(`/api/group_invites/${invite.id}/`, auth('invitee'))).id, invite.id)
  })

  test('who may invite whom', async () => {
    const cases: [Record<string, unknown>, string, number, unknown][] = [
      [{ group: group.club, user: users.other.id }, 'stranger', 403, { detail: "Only the group's administrators can invite people." }],
      [
        { group: group.club, user: users.invitee.id },
        'owner',
        400,
        { non_field_errors: ['This user already has a pending invitation to the group.'] },
      ],
      [{ group: group.club, user: users.admin.id }, 'owner', 400, { user: ['This user is already a member of the group.'] }],
      [{ group: group.club, user: 999999 }, 'owner', 400, { user: ['Invalid pk "999999" - object does not exist.'] }],
      [{ group: 999999, user: users.other.id }, 'owner', 400, { group: ['Invalid pk "999999" - object does not exist.'] }],
      [{ group: group.club }, 'owner', 400, { user: ['This field is required.'] }],
      [{ group: 'abc', user: users.other.id }, 'owner', 400, { group: ['A valid integer is required.'] }],
    ]
    for (const [body, who, status, answer] of cases) {
      const response = await post('/api/group_invites/', body, who)
      assert.equal(response.statusCode, status, `${JSON.stringify(body)} by ${who}: ${response.body}`)
      assert.deepEqual(response.json(), answer)
    }
    assert.equal((await post('/api/group_invites/', { group: group.club, user: users.other.id })).statusCode, 403)
  })

  test('the invitee, the administrators and staff see an invitation; others do not', async () => {
    const ids = async (name: string, query = '') =>
      (await t.json(`/api/group_invites/?page_size=100${query}`, auth(name))).results.map((i: any) => i.user)
    assert.deepEqual(await ids('invitee'), [users.invitee.id])
    assert.deepEqual(await ids('stranger'), [])
    const administered = await ids('admin', `&group=${group.club}`)
    assert.deepEqual(administered.sort(), [users.admin.id, users.invitee.id].sort())
    assert.deepEqual(await ids('owner', `&group=${group.club}&status=pending`), [users.invitee.id])
    assert.deepEqual(await ids('owner', `&user=${users.admin.id}`), [users.admin.id])
    assert.ok((await t.json('/api/group_invites/?page_size=100', auth('staff'))).count > 3, 'staff see the seeded invitations too')
    assert.equal((await t.get('/api/group_invites/')).statusCode, 403)
    const invite = (await t.json(`/api/group_invites/?group=${group.club}&user=${users.invitee.id}`, auth('owner'))).results[0]
    assert.equal((await t.get(`/api/group_invites/${invite.id}/`, auth('stranger'))).statusCode, 403)
    assert.equal((await t.get('/api/group_invites/999999/', auth('stranger'))).statusCode, 404)
  })

  test('the invitee accepts and becomes a member, once', async () => {
    const invite = (await t.json(`/api/group_invites/?user=${users.invitee.id}`, auth('invitee'))).results[0]
    assert.equal((await post(`/api/group_invites/${invite.id}/accept/`, {}, 'other')).statusCode, 403)
    assert.equal(
      (await post(`/api/group_invites/${invite.id}/accept/`, {}, 'admin')).statusCode,
      403,
      'administrators do not accept for the invitee',
    )
    const before = (await t.json(`/api/groups/${group.club}/`)).member_count
    const accepted = await post(`/api/group_invites/${invite.id}/accept/`, undefined, 'invitee')
    assert.equal(accepted.statusCode, 200, accepted.body)
    assert.equal(accepted.json().status, 'accepted')
    assert.ok(await isMember(group.club, 'invitee'))
    assert.equal((await t.json(`/api/groups/${group.club}/`)).member_count, before + 1)
    const again = await post(`/api/group_invites/${invite.id}/accept/`, {}, 'invitee')
    assert.equal(again.statusCode, 400)
    assert.deepEqual(again.json(), { non_field_errors: ['This invitation is no longer pending.'] })
  })

  test('declining and revoking', async () => {
    const first = (await post('/api/group_invites/', { group: group.club, user: users.other.id }, 'owner')).json()
    assert.equal((await post(`/api/group_invites/${first.id}/revoke/`, {}, 'other')).statusCode, 403, 'the invitee declines, not revokes')
    const declined = await post(`/api/group_invites/${first.id}/decline/`, {}, 'other')
    assert.equal(declined.json().status, 'declined')
    assert.equal(await isMember(group.club, 'other'), false)
    const second = (await post('/api/group_invites/', { group: group.club, user: users.other.id }, 'admin')).json()
    assert.equal(second.status, 'pending', 'a new invitation after a declined one')
    const revoked = await post(`/api/group_invites/${second.id}/revoke/`, undefined, 'admin')
    assert.equal(revoked.json().status, 'revoked')
    assert.equal((await post(`/api/group_invites/${second.id}/accept/`, {}, 'other')).statusCode, 400)
    assert.equal((await post(`/api/groups/${group.club}/join/`, {}, 'other')).statusCode, 403)
  })
})

describe('join requests', () => {
  test('asking to join a group that takes requests', async () => {
    const response = await post('/api/group_join_requests/', { group: group.society, message: '  I live nearby  ' }, 'requester')
    assert.equal(response.statusCode, 201, response.body)
    const request = response.json()
    assert.deepEqual(Object.keys(request).sort(), [
      'created_at',
      'group',
      'id',
      'message',
      'modified_at',
      'status',
      'url',
      'user',
      'user_info',
    ])
    assert.equal(request.url, `http://localhost:80/api/group_join_requests/${request.id}/`)
    assert.equal(request.user, users.requester.id)
    assert.equal(request.message, 'I live nearby')
    assert.equal(request.status, 'pending')
    assert.equal(request.user_info.username, 'ir_requester')
    assert.equal((await post('/api/group_join_requests/', { group: group.society }, 'second')).statusCode, 201)
  })

  test('requests that make no sense are refused', async () => {
    const cases: [Record<string, unknown>, string, Record<string, string[]>][] = [
      [{ group: group.society }, 'requester', { non_field_errors: ['You already have a pending request to join this group.'] }],
      [{ group: group.society }, 'owner', { group: ['You are a member of this group already.'] }],
      [{ group: group.open }, 'stranger', { group: ['Anyone may join this group: join it directly.'] }],
      [{ group: group.club }, 'stranger', { group: ['This group can only be joined by invitation.'] }],
      [{ group: 999999 }, 'stranger', { group: ['Invalid pk "999999" - object does not exist.'] }],
      [{}, 'stranger', { group: ['This field is required.'] }],
      [
        { group: group.society, message: 'x'.repeat(1001) },
        'stranger',
        { message: ['Ensure this field has no more than 1000 characters.'] },
      ],
    ]
    for (const [body, who, answer] of cases) {
      const response = await post('/api/group_join_requests/', body, who)
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)} by ${who}`)
      assert.deepEqual(response.json(), answer)
    }
  })

  test("the requester and the group's administrators see a request", async () => {
    const users_ = async (name: string, query = '') =>
      (await t.json(`/api/group_join_requests/?page_size=100${query}`, auth(name))).results.map((r: any) => r.user).sort()
    assert.deepEqual(await users_('requester'), [users.requester.id])
    assert.deepEqual(await users_('owner', `&group=${group.society}`), [users.requester.id, users.second.id].sort())
    assert.deepEqual(await users_('owner', `&user=${users.second.id}`), [users.second.id])
    assert.deepEqual(await users_('stranger'), [])
    assert.equal((await t.get('/api/group_join_requests/')).statusCode, 403)
    const request = (await t.json(`/api/group_join_requests/?user=${users.requester.id}`, auth('requester'))).results[0]
    assert.equal((await t.get(`/api/group_join_requests/${request.id}/`, auth('owner'))).statusCode, 200)
    assert.equal((await t.get(`/api/group_join_requests/${request.id}/`, auth('stranger'))).statusCode, 403)
  })

  test('an administrator accepts: the requester becomes a member; the requester cannot accept', async () => {
    const request = (await t.json(`/api/group_join_requests/?user=${users.requester.id}`, auth('requester'))).results[0]
    assert.equal((await post(`/api/group_join_requests/${request.id}/accept/`, {}, 'requester')).statusCode, 403)
    const accepted = await post(`/api/group_join_requests/${request.id}/accept/`, undefined, 'owner')
    assert.equal(accepted.statusCode, 200, accepted.body)
    assert.equal(accepted.json().status, 'accepted')
    assert.ok(await isMember(group.society, 'requester'))
    assert.equal((await t.json(`/api/group_join_requests/?group=${group.society}&status=pending`, auth('owner'))).count, 1)
    assert.equal((await post(`/api/group_join_requests/${request.id}/reject/`, {}, 'owner')).statusCode, 400)
  })

  test('rejecting and withdrawing', async () => {
    const second = (await t.json(`/api/group_join_requests/?user=${users.second.id}`, auth('second'))).results[0]
    assert.equal((await post(`/api/group_join_requests/${second.id}/reject/`, {}, 'second')).statusCode, 403)
    assert.equal((await post(`/api/group_join_requests/${second.id}/reject/`, {}, 'owner')).json().status, 'declined')
    assert.equal(await isMember(group.society, 'second'), false)
    const again = (await post('/api/group_join_requests/', { group: group.society }, 'second')).json()
    assert.equal(
      (await post(`/api/group_join_requests/${again.id}/withdraw/`, {}, 'owner')).statusCode,
      403,
      'only the requester withdraws',
    )
    assert.equal((await post(`/api/group_join_requests/${again.id}/withdraw/`, {}, 'second')).json().status, 'withdrawn')
  })

  test('stored counters equal a recomputation', async () => {
    await assertCountersMatchRecompute(t.database.db)
  })
})
