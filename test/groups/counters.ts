import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'

/** The stored counters that group memberships and follow links move. */
const COUNTERS = {
  users: ['count_group_memberships', 'count_following_tags', 'count_following_users', 'count_followers'],
  groups: ['member_count'],
  tags: ['followers_count'],
}

/** Stored counters equal what a full recomputation from the raw rows gives; the recomputation is rolled back. */
export async function assertCountersMatchRecompute(db: Kysely<Database>): Promise<void> {
  assert.deepEqual(await storedFigureDifferences(db, COUNTERS), [])
}
