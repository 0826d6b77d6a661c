import { insertRows } from './bulk.ts'
import { ACTIVITY_END, DAY, loadOptions, type SeedContext, type UserPool } from './context.ts'
import { TOPICS } from './data/topics.ts'
import { AliasTable, type Random } from './random.ts'

const FOLLOWING_USER_SPEC = { id: 'int', user_id: 'int', following_id: 'int', created_at: 'time' } as const
const FOLLOWING_TAG_SPEC = { id: 'int', user_id: 'int', tag_id: 'int', created_at: 'time' } as const
const FRIENDSHIP_SPEC = { id: 'int', user_id: 'int', friend_id: 'int', accepted_at: 'time', created_at: 'time' } as const
const DELEGATION_SPEC = {
  id: 'int',
  user_id: 'int',
  tag_id: 'int',
  trustee_id: 'int',
  priority: 'int',
  created_at: 'time',
  revoked_at: 'time',
} as const

export interface SocialSummary {
  followingUsers: number
  followingTags: number
  friendships: number
  delegations: number
}

/** Some time after both people had signed up. */
function bothJoined(rng: Random, users: UserPool, a: number, b: number, mean: number): number {
  return Math.min(ACTIVITY_END, Math.max(users.createdAt[a], users.createdAt[b]) + 60 + Math.floor(rng.exponential(mean)))
}

/**
 * Who follows whom (politicians and active users attract more followers), followed tags, accepted
 * (and a few pending) friendships, and a few tag delegations: to a trustee, or a block (no trustee),
 * some with an earlier revoked delegation before them. Delegations are not resolved into liquid figures.
 */
export async function seedSocial(ctx: SeedContext, users: UserPool): Promise<SocialSummary> {
  const rng = ctx.rng.stream('social')
  const n = users.count
  const politicians = new Set(users.politicianUserIds)
  const popularity = new AliasTable(Array.from(users.activity, (a, i) => a * (politicians.has(i + 1) ? 20 : 1)))

  const followingUsers: Record<string, unknown>[] = []
  const followingTags: Record<string, unknown>[] = []
  for (let u = 0; u < n; u++) {
    const follows = new Set<number>()
    for (let k = rng.poisson(1.6), tries = 0; follows.size < k && tries < 20; tries++) {
      const other = popularity.draw(rng)
      if (other !== u) follows.add(other)
    }
    for (const other of [...follows].sort((a, b) => a - b)) {
      followingUsers.push({
        id: followingUsers.length + 1,
        user_id: u + 1,
        following_id: other + 1,
        created_at: bothJoined(rng, users, u, other, 20 * DAY),
      })
    }
    for (const t of rng.distinctInts(TOPICS.length, rng.poisson(1.2)).sort((a, b) => a - b)) {
      followingTags.push({
        id: followingTags.length + 1,
        user_id: u + 1,
        tag_id: t + 1,
        created_at: bothJoined(rng, users, u, u, 10 * DAY),
      })
    }
  }

  const friendships: Record<string, unknown>[] = []
  const pairs = new Set<number>()
  for (let k = 0, tries = 0; k < Math.round(n * 0.6) && tries < n * 3; tries++) {
    const a = rng.int(0, n - 1)
    const b = rng.int(0, n - 1)
    const key = Math.min(a, b) * n + Math.max(a, b)
    if (a === b || pairs.has(key)) continue
    pairs.add(key)
    k++
    const asked = bothJoined(rng, users, a, b, 30 * DAY)
    friendships.push({
      id: friendships.length + 1,
      user_id: a + 1,
      friend_id: b + 1,
      accepted_at: rng.chance(0.92) ? Math.min(ACTIVITY_END, asked + Math.floor(rng.exponential(2 * DAY))) : null,
      created_at: asked,
    })
  }

  const delegations: Record<string, unknown>[] = []
  const trustees = users.politicianUserIds.length > 0 ? users.politicianUserIds : users.staffIds
  const delegators = rng.distinctInts(n, Math.max(3, Math.round(n * 0.03))).sort((a, b) => a - b)
  for (const u of delegators) {
    for (const t of rng.distinctInts(TOPICS.length, rng.int(1, 2)).sort((a, b) => a - b)) {
      const pickTrustee = () => {
        const id = rng.chance(0.6) ? rng.pick(trustees) : rng.int(1, n)
        return id === u + 1 ? (id % n) + 1 : id
      }
      let at = bothJoined(rng, users, u, u, 30 * DAY)
      if (rng.chance(0.15)) {
        const revoked = Math.min(ACTIVITY_END, at + Math.floor(rng.exponential(20 * DAY)))
        delegations.push({
          id: delegations.length + 1,
          user_id: u + 1,
          tag_id: t + 1,
          trustee_id: pickTrustee(),
          priority: 0,
          created_at: at,
          revoked_at: revoked,
        })
        at = revoked
      }
      delegations.push({
        id: delegations.length + 1,
        user_id: u + 1,
        tag_id: t + 1,
        trustee_id: delegations.length === 0 || rng.chance(0.1) ? null : pickTrustee(),
        priority: 0,
        created_at: at,
        revoked_at: null,
      })
    }
  }

  const { db } = ctx
  await insertRows(db, 'following_users', FOLLOWING_USER_SPEC, followingUsers, loadOptions(ctx, 'followed users', followingUsers.length))
  await insertRows(db, 'following_tags', FOLLOWING_TAG_SPEC, followingTags, loadOptions(ctx, 'followed tags', followingTags.length))
  await insertRows(db, 'friendships', FRIENDSHIP_SPEC, friendships, loadOptions(ctx, 'friendships', friendships.length))
  await insertRows(ctx.db, 'tag_delegations', DELEGATION_SPEC, delegations, { chunkSize: ctx.scale.chunkSize })
  return {
    followingUsers: followingUsers.length,
    followingTags: followingTags.length,
    friendships: friendships.length,
    delegations: delegations.length,
  }
}
