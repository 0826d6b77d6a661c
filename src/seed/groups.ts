import { insertRows } from './bulk.ts'
import { ACTIVITY_END, DAY, loadOptions, type QuestionPool, type SeedContext, type UserPool } from './context.ts'
import { UK_REGIONS } from './data/uk-regions.ts'
import { SlugSet } from './question-ideas.ts'
import { groupDescription, groupName } from './text.ts'

const GROUP_SPEC = {
  id: 'int',
  name: 'text',
  slug: 'text',
  description: 'text',
  image: 'text',
  owner_id: 'int',
  join_policy: 'text',
  created_at: 'time',
  modified_at: 'time',
} as const

const MEMBERSHIP_SPEC = {
  id: 'int',
  group_id: 'int',
  user_id: 'int',
  role: 'text',
  share_email: 'bool',
  created_at: 'time',
} as const

const INVITE_SPEC = {
  id: 'int',
  group_id: 'int',
  user_id: 'int',
  email: 'text',
  invited_by_id: 'int',
  status: 'text',
  created_at: 'time',
  modified_at: 'time',
} as const

const REQUEST_SPEC = {
  id: 'int',
  group_id: 'int',
  user_id: 'int',
  message: 'text',
  status: 'text',
  created_at: 'time',
  modified_at: 'time',
} as const

const CONNECTION_SPEC = {
  id: 'int',
  group_id: 'int',
  question_id: 'int',
  active: 'bool',
  created_at: 'time',
  modified_at: 'time',
} as const

/** The first groups show each join policy once; the rest are mostly open. */
const JOIN_POLICIES = ['open', 'request', 'invite'] as const

export interface GroupPool {
  count: number
  /** Member user ids of each group (index = group id - 1), owner first. */
  members: number[][]
  createdAt: number[]
}

function later(base: number, extra: number): number {
  return Math.min(ACTIVITY_END, base + extra)
}

export async function seedGroups(ctx: SeedContext, users: UserPool): Promise<GroupPool> {
  const rng = ctx.rng.stream('groups')
  ctx.progress('groups', 0, ctx.scale.groups)
  const slugs = new SlugSet()
  const pool: GroupPool = { count: ctx.scale.groups, members: [], createdAt: [] }
  const groups: Record<string, unknown>[] = []
  const memberships: Record<string, unknown>[] = []
  const invites: Record<string, unknown>[] = []
  const requests: Record<string, unknown>[] = []
  for (let g = 0; g < pool.count; g++) {
    const id = g + 1
    const ownerIndex = rng.int(0, Math.max(0, Math.floor(users.count / 2) - 1))
    const created = later(users.createdAt[ownerIndex], rng.int(1, 40) * DAY)
    const region = UK_REGIONS[users.region[ownerIndex] >= 0 ? users.region[ownerIndex] : rng.int(0, UK_REGIONS.length - 1)]
    const name = groupName(rng, rng.pick(region.places), region.name)
    const policy =
      g < JOIN_POLICIES.length
        ? JOIN_POLICIES[g]
        : rng.weighted<string>([
            ['open', 60],
            ['request', 25],
            ['invite', 15],
          ])
    groups.push({
      id,
      name,
      slug: slugs.claim(name),
      description: groupDescription(rng, name),
      image: rng.chance(0.3) ? `https://images.example.org/groups/${id}.png` : null,
      owner_id: ownerIndex + 1,
      join_policy: policy,
      created_at: created,
      modified_at: created,
    })
    pool.createdAt.push(created)

    const size = Math.max(3, Math.min(Math.floor(users.count / 3), Math.round(users.count * 0.01 * rng.logNormal(0.8))))
    const others = rng
      .distinctInts(users.count, size)
      .map((i) => i + 1)
      .filter((u) => u !== ownerIndex + 1)
    const members = [ownerIndex + 1, ...others.slice(0, size - 1).sort((a, b) => a - b)]
    pool.members.push(members)
    members.forEach((userId, k) => {
      const joined = later(Math.max(created, users.createdAt[userId - 1]), k === 0 ? 0 : Math.floor(rng.exponential(20 * DAY)))
      memberships.push({
        id: memberships.length + 1,
        group_id: id,
        user_id: userId,
        role: k === 0 || rng.chance(0.05) ? 'admin' : 'member',
        share_email: rng.chance(0.2),
        created_at: joined,
      })
    })

    const memberSet = new Set(members)
    const outsiders = rng
      .distinctInts(users.count, members.length + 3)
      .map((i) => i + 1)
      .filter((u) => !memberSet.has(u))
      .slice(0, 3)
    if (policy === 'invite') {
      for (const userId of outsiders) {
        const at = later(Math.max(created, users.createdAt[userId - 1]), rng.int(1, 30) * DAY)
        invites.push({
          id: invites.length + 1,
          group_id: id,
          user_id: userId,
          email: null,
          invited_by_id: ownerIndex + 1,
          status: rng.weighted<string>([
            ['pending', 60],
            ['declined', 25],
            ['revoked', 15],
          ]),
          created_at: at,
          modified_at: at,
        })
      }
      const at = later(created, DAY)
      invites.push({
        id: invites.length + 1,
        group_id: id,
        user_id: null,
        email: `friend${id}@example.net`,
        invited_by_id: ownerIndex + 1,
        status: 'pending',
        created_at: at,
        modified_at: at,
      })
    } else if (policy === 'request') {
      for (const userId of outsiders) {
        const at = later(Math.max(created, users.createdAt[userId - 1]), rng.int(1, 30) * DAY)
        requests.push({
          id: requests.length + 1,
          group_id: id,
          user_id: userId,
          message: rng.chance(0.5) ? 'I live locally and would like to take part.' : '',
          status: rng.weighted<string>([
            ['pending', 60],
            ['declined', 25],
            ['withdrawn', 15],
          ]),
          created_at: at,
          modified_at: at,
        })
      }
    }
  }
  await insertRows(ctx.db, 'groups', GROUP_SPEC, groups)
  const membershipOptions = loadOptions(ctx, 'group members', memberships.length)
  await insertRows(ctx.db, 'group_memberships', MEMBERSHIP_SPEC, memberships, membershipOptions)
  await insertRows(ctx.db, 'group_invites', INVITE_SPEC, invites)
  await insertRows(ctx.db, 'group_join_requests', REQUEST_SPEC, requests)
  return pool
}

/**
 * Connects each group to its own questions and to a few others it picked; about one connection in
 * ten is disabled (active = false).
 */
export async function seedGroupConnections(ctx: SeedContext, groups: GroupPool, questions: QuestionPool): Promise<void> {
  const rng = ctx.rng.stream('group-connections')
  const byGroup: number[][] = groups.members.map(() => [])
  for (let q = 0; q < questions.count; q++) if (questions.groupId[q]) byGroup[questions.groupId[q] - 1].push(q)
  const rows: Record<string, unknown>[] = []
  for (let g = 0; g < groups.count; g++) {
    const own = new Set(byGroup[g])
    const picked: number[] = []
    const wanted = rng.int(2, 6)
    for (let tries = 0; tries < 40 && picked.length < wanted; tries++) {
      const q = rng.int(0, questions.count - 1)
      if (questions.published[q] && !own.has(q) && !picked.includes(q)) picked.push(q)
    }
    for (const q of [...own, ...picked].sort((a, b) => a - b)) {
      const at = later(Math.max(groups.createdAt[g], questions.createdAt[q]), rng.int(0, 5) * DAY)
      rows.push({
        id: rows.length + 1,
        group_id: g + 1,
        question_id: q + 1,
        active: rng.chance(0.9),
        created_at: at,
        modified_at: at,
      })
    }
  }
  await insertRows(ctx.db, 'group_question_connections', CONNECTION_SPEC, rows)
}
