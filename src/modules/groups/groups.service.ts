import type { Kysely } from 'kysely'
import type { Caller } from '../../core/caller.ts'
import type { Database } from '../../db/database.ts'
import { NotFound, PermissionDenied, ValidationFailed, type FieldErrors, invalidPk } from '../../core/errors.ts'
import { optionalWebLink } from '../../core/web-links.ts'
import { nextFreeSlug, slugify } from '../questions/slug.ts'
import { sqlState, refusingViolations } from '../../core/constraint-errors.ts'
import { trimmed } from '../../core/text-fields.ts'
import { toGroup } from './groups.mapper.ts'
import { groupsRepository, type GroupRow, type GroupValues } from './groups.repository.ts'
import { JOIN_POLICIES, type Group, type GroupChanges, type GroupCreate, type JoinBody, type JoinPolicy } from './groups.schemas.ts'
import { invitesRepository } from './invites/invites.repository.ts'
import { joinRequestsRepository } from './join-requests/join-requests.repository.ts'
import { membershipsRepository } from './memberships/memberships.repository.ts'
import { addMember, removeMember } from './memberships/memberships.service.ts'
import type { ViewContext } from '../../core/view-context.ts'

const SLUG_PATTERN = /^[-a-zA-Z0-9_]+$/
const SLUG_TAKEN = 'group with this slug already exists.'

/** Groups for a page of rows: question counts and the caller's membership and pending request, one statement each. */
export async function groupsFromRows(context: ViewContext, rows: GroupRow[]): Promise<Group[]> {
  if (rows.length === 0) return []
  const repository = groupsRepository(context.db)
  const ids = rows.map((row) => row.id)
  const callerId = context.caller?.id ?? null
  const [counts, memberships, requests] = await Promise.all([
    repository.questionCounts(ids),
    callerId === null ? Promise.resolve([]) : membershipsRepository(context.db).ofUser(callerId, ids),
    callerId === null ? Promise.resolve([]) : repository.pendingRequestsOf(callerId, ids),
  ])
  return rows.map((row) =>
    toGroup(
      row,
      {
        questionCount: counts.get(row.id) ?? 0,
        myMembership: memberships.find((membership) => membership.group_id === row.id),
        myJoinRequest: requests.find((request) => request.group_id === row.id),
      },
      context.urls,
    ),
  )
}

/** A name as a slug base; names without a single Latin letter or digit give "group". */
function slugBase(name: string): string {
  return /[a-z0-9]/i.test(name.normalize('NFKD')) ? slugify(name) : 'group'
}

function policyOf(body: GroupChanges, current: JoinPolicy | undefined, errors: FieldErrors): JoinPolicy | undefined {
  if (body.join_policy !== undefined) {
    if ((JOIN_POLICIES as readonly string[]).includes(body.join_policy)) return body.join_policy as JoinPolicy
    errors.join_policy = [`"${body.join_policy}" is not a valid choice.`]
    return undefined
  }
  if (body.is_private === undefined) return undefined
  if (!body.is_private) return 'open'
  // A private group stays invitation-only if it was; otherwise it takes requests.
  return current === 'invite' ? 'invite' : 'request'
}

/** The writable fields of a group from a body, checked; errors collect every field's problems. */
function groupValues(body: GroupChanges, current: GroupRow | undefined, errors: FieldErrors): GroupValues {
  const values: GroupValues = {}
  const name = trimmed(body.name, 'name', errors)
  if (name !== undefined) values.name = name
  if (body.slug !== undefined) {
    if (SLUG_PATTERN.test(body.slug)) values.slug = body.slug
    else errors.slug = ['Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.']
  }
  const description = trimmed(body.description, 'description', errors, true)
  if (description !== undefined) values.description = description
  const image = optionalWebLink(body.image, 'image', errors)
  if (image !== undefined) values.image = image
  const policy = policyOf(body, current?.join_policy as JoinPolicy | undefined, errors)
  if (policy !== undefined) values.join_policy = policy
  return values
}

/** Creates the group with the caller as its owner and first administrator. A generated slug that loses a race is made again. */
export async function createGroup(db: Kysely<Database>, caller: Caller, body: GroupCreate): Promise<number> {
  const errors: FieldErrors = {}
  const values = groupValues(body, undefined, errors)
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  const name = values.name!
  for (let attempt = 1; ; attempt++) {
    const slug = values.slug ?? nextFreeSlug(slugBase(name), await groupsRepository(db).slugsStartingWith(slugBase(name)))
    try {
      return await db.transaction().execute(async (trx) => {
        const group = await groupsRepository(trx).insert({ ...values, name, slug, owner_id: caller.id })
        await addMember(trx, group.id, caller.id, { role: 'admin' })
        return group.id
      })
    } catch (error) {
      if (sqlState(error) !== '23505') throw error
      if (values.slug !== undefined || attempt >= 3) throw ValidationFailed({ slug: [SLUG_TAKEN] })
    }
  }
}

/** Changes the fields sent. A new owner must be a member already and becomes an administrator. */
export async function updateGroup(db: Kysely<Database>, id: number, body: GroupChanges): Promise<void> {
  await refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        const repository = groupsRepository(trx)
        const group = await repository.lock(id, 'group')
        if (!group) throw NotFound()
        const errors: FieldErrors = {}
        const values = groupValues(body, group, errors)
        if (body.owner !== undefined && body.owner !== group.owner_id) {
          const memberships = membershipsRepository(trx)
          const membership = await memberships.findOf(id, body.owner)
          if (membership) {
            if (membership.role !== 'admin') await memberships.update(membership.id, { role: 'admin' })
            values.owner_id = body.owner
          } else {
            errors.owner = [
              (await repository.userExists(body.owner)) ? 'The new owner must be a member of the group.' : invalidPk(body.owner),
            ]
          }
        }
        if (Object.keys(errors).length) throw ValidationFailed(errors)
        if (Object.keys(values).length) await repository.update(id, values)
      }),
    { unique: { slug: [SLUG_TAKEN] } },
  )
}

/** Removes the group with its memberships, invitations, requests and question connections; members count one group fewer. */
export async function deleteGroup(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = groupsRepository(trx)
    if (!(await repository.lock(id, 'group'))) throw NotFound()
    await membershipsRepository(trx).uncountAllOf(id)
    await repository.remove(id)
  })
}

/**
 * Joins the group: members stay members (share_email may change), an invitation or an open group admits
 * at once, a group taking requests gets one, and an invitation-only group refuses. Answers whether
 * anything new was made (a membership or a request).
 */
export async function joinGroup(db: Kysely<Database>, caller: Caller, groupId: number, body: JoinBody): Promise<boolean> {
  const shareEmail = body.default_share_email ?? body.share_email
  return db.transaction().execute(async (trx) => {
    const group = await groupsRepository(trx).lock(groupId, 'members')
    if (!group) throw NotFound()
    const memberships = membershipsRepository(trx)
    const current = await memberships.findOf(groupId, caller.id)
    if (current) {
      if (shareEmail !== undefined && shareEmail !== current.share_email) await memberships.update(current.id, { share_email: shareEmail })
      return false
    }
    const invited = await invitesRepository(trx).pendingOf(groupId, caller.id)
    if (group.join_policy === 'open' || invited) {
      return (await addMember(trx, groupId, caller.id, { share_email: shareEmail ?? false })).created
    }
    if (group.join_policy === 'request') {
      const message = body.message?.trim() ?? ''
      return (await joinRequestsRepository(trx).insertPending({ group_id: groupId, user_id: caller.id, message })) !== undefined
    }
    throw PermissionDenied('This group can only be joined by invitation.')
  })
}

/** Leaves the group and withdraws a pending join request; nothing to leave is fine. The owner cannot leave. */
export async function leaveGroup(db: Kysely<Database>, caller: Caller, groupId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (!(await groupsRepository(trx).lock(groupId, 'members'))) throw NotFound()
    const membership = await membershipsRepository(trx).findOf(groupId, caller.id)
    if (membership) await removeMember(trx, membership)
    await joinRequestsRepository(trx).withdrawPending(groupId, caller.id)
  })
}
