import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { recomputeStatistics } from '../../src/modules/statistics/recompute.ts'

/** The stored counters that group memberships and follow links move. */
async function snapshot(db: Kysely<Database>) {
  const [users, groups, tags] = await Promise.all([
    db.selectFrom('users').select(['id', 'count_group_memberships', 'count_following_tags', 'count_following_users', 'count_followers']).orderBy('id').execute(),
    db.selectFrom('groups').select(['id', 'member_count']).orderBy('id').execute(),
    db.selectFrom('tags').select(['id', 'followers_count']).orderBy('id').execute(),
  ])
  return { users, groups, tags }
}

/** Stored counters equal what a full recomputation from the raw rows gives; the recomputation is rolled back. */
export async function assertCountersMatchRecompute(db: Kysely<Database>): Promise<void> {
  class Rollback extends Error {}
  let stored: Awaited<ReturnType<typeof snapshot>> | undefined
  let recomputed: Awaited<ReturnType<typeof snapshot>> | undefined
  try {
    await db.transaction().execute(async (trx) => {
      stored = await snapshot(trx)
      await recomputeStatistics(trx)
      recomputed = await snapshot(trx)
      throw new Rollback()
    })
  } catch (error) {
    if (!(error instanceof Rollback)) throw error
  }
  assert.deepEqual(stored, recomputed)
}
