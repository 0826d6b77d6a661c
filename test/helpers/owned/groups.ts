import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import type { OwnedObjects } from './index.ts'

/** Objects of the group resources that belong to (or are administered by) one user. */
let serial = 0
const unique = (prefix: string) => `${prefix}-${process.pid}-${++serial}`

async function someone(db: Kysely<Database>) {
  const username = unique('walk-person')
  return db
    .insertInto('users')
    .values({ username, email: `${username}@example.net` })
    .returning('id')
    .executeTakeFirstOrThrow()
}

async function group(db: Kysely<Database>, ownerId: number | null, joinPolicy: 'open' | 'request' | 'invite' = 'open') {
  const name = unique('Walk group')
  const row = await db
    .insertInto('groups')
    .values({ name, slug: name.toLowerCase().replace(/\s/g, '-'), owner_id: ownerId, join_policy: joinPolicy })
    .returning('id')
    .executeTakeFirstOrThrow()
  if (ownerId !== null) await db.insertInto('group_memberships').values({ group_id: row.id, user_id: ownerId, role: 'admin' }).execute()
  return row
}

const id = (row: { id: number }) => ({ id: String(row.id) })

/** A pending invitation: to the owner, or from a group the owner administers to someone else. */
async function invite(db: Kysely<Database>, ownerId: number, ownerIs: 'invitee' | 'administrator') {
  const other = await someone(db)
  const target = ownerIs === 'invitee' ? await group(db, other.id, 'invite') : await group(db, ownerId, 'invite')
  const invitee = ownerIs === 'invitee' ? ownerId : other.id
  return id(
    await db
      .insertInto('group_invites')
      .values({ group_id: target.id, user_id: invitee, invited_by_id: ownerIs === 'invitee' ? other.id : ownerId })
      .returning('id')
      .executeTakeFirstOrThrow(),
  )
}

/** A pending join request: the owner's own, or to a group the owner administers. */
async function joinRequest(db: Kysely<Database>, ownerId: number, ownerIs: 'requester' | 'administrator') {
  const other = await someone(db)
  const target = ownerIs === 'requester' ? await group(db, other.id, 'request') : await group(db, ownerId, 'request')
  const requester = ownerIs === 'requester' ? ownerId : other.id
  return id(
    await db
      .insertInto('group_join_requests')
      .values({ group_id: target.id, user_id: requester })
      .returning('id')
      .executeTakeFirstOrThrow(),
  )
}

export const owned: OwnedObjects = {
  '/api/groups/:id/': async (db, ownerId) => id(await group(db, ownerId)),
  '/api/groups/:id/join/': async (db) => id(await group(db, null)),
  '/api/groups/:id/leave/': async (db) => id(await group(db, null)),
  '/api/group_memberships/:id/': async (db, ownerId) => {
    const target = await group(db, null)
    return id(
      await db.insertInto('group_memberships').values({ group_id: target.id, user_id: ownerId }).returning('id').executeTakeFirstOrThrow(),
    )
  },
  '/api/group_invites/:id/': (db, ownerId) => invite(db, ownerId, 'invitee'),
  '/api/group_invites/:id/accept/': (db, ownerId) => invite(db, ownerId, 'invitee'),
  '/api/group_invites/:id/decline/': (db, ownerId) => invite(db, ownerId, 'invitee'),
  '/api/group_invites/:id/revoke/': (db, ownerId) => invite(db, ownerId, 'administrator'),
  '/api/group_join_requests/:id/': (db, ownerId) => joinRequest(db, ownerId, 'requester'),
  '/api/group_join_requests/:id/withdraw/': (db, ownerId) => joinRequest(db, ownerId, 'requester'),
  '/api/group_join_requests/:id/accept/': (db, ownerId) => joinRequest(db, ownerId, 'administrator'),
  '/api/group_join_requests/:id/reject/': (db, ownerId) => joinRequest(db, ownerId, 'administrator'),
  '/api/group_question_connections/:id/': async (db, ownerId) => {
    const target = await group(db, ownerId)
    const author = await someone(db)
    const slug = unique('walk-question')
    const question = await db
      .insertInto('questions')
      .values({ user_id: author.id, question: `Walk ${slug}`, slug })
      .returning('id')
      .executeTakeFirstOrThrow()
    return id(
      await db
        .insertInto('group_question_connections')
        .values({ group_id: target.id, question_id: question.id })
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
  },
}
