import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import { rebuildAllLiquid } from '../engines/liquid/liquid.rebuild.ts'
import { recomputeStatistics } from '../engines/figures/recompute.ts'
import { seedAreas } from './areas.ts'
import { syncIdentitySequences, withTriggersDisabled } from './bulk.ts'
import { seedCensus } from './census.ts'
import { seedChoiceVotes } from './choice-votes.ts'
import { seedCollections } from './collections.ts'
import { seedComments } from './comments.ts'
import { SCALES, type SeedContext, type SeedScale } from './context.ts'
import { seedGroupConnections, seedGroups } from './groups.ts'
import { seedPeople } from './people.ts'
import { seedQuestionExtras } from './question-extras.ts'
import { seedQuestions, seedTags } from './questions.ts'
import { Random } from './random.ts'
import { seedSocial } from './social.ts'
import { seedQuestionVotes } from './votes.ts'

/** The triggers that settle questions' and tags' unreleased counts per private answer (migration 043). */
const UNRELEASED_COUNT_TRIGGERS = [
  { table: 'unreleased_answers', trigger: 'unreleased_answers_tag_votes' },
  { table: 'question_votes', trigger: 'question_votes_unreleased_tag_votes' },
]

export type { SeedScale } from './context.ts'
export { SCALES } from './context.ts'

export interface SeedOptions {
  scale: SeedScale
  /** The same seed and scale always give the same data, ids included. */
  seed: number
  /** Empty every data table first, even when the database holds users or questions. */
  force: boolean
  onProgress?: (stage: string, done: number, total: number) => void
}

export interface SeedSummary {
  users: number
  questions: number
  votes: number
  choiceVotes: number
  comments: number
  collections: number
  areas: number
  census: number
  tags: number
  groups: number
  politicians: number
}

export class DatabaseNotEmpty extends Error {
  override name = 'DatabaseNotEmpty'
}

/** Every table the seed writes, parents before children. */
const SEEDED_TABLES = [
  'areas',
  'tags',
  'politicians',
  'users',
  'user_geos',
  'groups',
  'group_memberships',
  'group_invites',
  'group_join_requests',
  'questions',
  'question_choices',
  'question_tags',
  'group_question_connections',
  'question_collections',
  'question_collection_items',
  'question_collection_tags',
  'question_votes',
  'question_vote_history',
  'question_choice_votes',
  'question_choice_vote_history',
  'question_links',
  'question_link_votes',
  'question_tag_votes',
  'comments',
  'comment_votes',
  'comment_reports',
  'vote_comments',
  'following_users',
  'following_tags',
  'friendships',
  'tag_delegations',
  'census_data',
] as const

/** True when the database has no users and no questions. */
export async function isDatabaseEmpty(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM users)
    OR EXISTS (SELECT 1 FROM questions) AS found`.execute(db)
  return !rows[0].found
}

/** TRUNCATE ... RESTART IDENTITY CASCADE of every table except Kysely's migration bookkeeping and settings. */
async function truncateAllData(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables
    WHERE schemaname = current_schema() AND tablename NOT LIKE 'kysely\\_%' AND tablename <> 'disclosure_settings'
    ORDER BY tablename`.execute(db)
  if (rows.length === 0) return
  const list = rows.map((r) => `"${r.name}"`).join(', ')
  await sql.raw(`TRUNCATE ${list} RESTART IDENTITY CASCADE`).execute(db)
}

/** Clears leftovers (areas, tags, census...) in the tables the seed writes, leaving every other table alone. */
async function clearSeededTables(db: Kysely<Database>): Promise<void> {
  for (const table of [...SEEDED_TABLES].reverse()) await sql.raw(`DELETE FROM "${table}"`).execute(db)
}

async function analyze(db: Kysely<Database>, tables: readonly string[]): Promise<void> {
  await sql.raw(`ANALYZE ${tables.map((t) => `"${t}"`).join(', ')}`).execute(db)
}

function checkOptions(options: SeedOptions): void {
  if (!(options.scale in SCALES)) {
    throw new RangeError(`unknown seed scale '${options.scale}' (expected ${Object.keys(SCALES).join(', ')})`)
  }
  if (!Number.isSafeInteger(options.seed) || options.seed < 0 || options.seed > 0xffffffff) {
    throw new RangeError(`the seed must be an integer from 0 to 4294967295, got ${options.seed}`)
  }
}

/**
 * Fills an empty database with believable, deterministic civic data at the given scale, then
 * recomputes every stored figure. Runs in one transaction: on failure nothing is left behind.
 */
export async function seedDatabase(db: Kysely<Database>, options: SeedOptions): Promise<SeedSummary> {
  checkOptions(options)
  const run = (trx: Kysely<Database>) => seedInTransaction(trx, options)
  if (db.isTransaction) return run(db)
  return db.transaction().execute(run)
}

async function seedInTransaction(db: Kysely<Database>, options: SeedOptions): Promise<SeedSummary> {
  if (options.force) {
    await truncateAllData(db)
  } else if (!(await isDatabaseEmpty(db))) {
    throw new DatabaseNotEmpty(
      'the database already has users or questions; seeding would mix with them. ' + 'Use --force to empty every table and seed again.',
    )
  } else {
    await clearSeededTables(db)
  }

  // Room for building the indexes of the large tables and for the statistics' GROUP BYs; reset at commit.
  await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(db)
  await sql`SET LOCAL work_mem = '64MB'`.execute(db)

  const progress = options.onProgress ?? (() => {})
  const ctx: SeedContext = { db, rng: new Random(options.seed), scale: SCALES[options.scale], progress }

  const areas = await seedAreas(ctx)
  const tags = await seedTags(ctx)
  const { users, politicians } = await seedPeople(ctx, areas)
  const groups = await seedGroups(ctx, users)
  const questions = await seedQuestions(ctx, users, areas, groups)
  await seedGroupConnections(ctx, groups, questions)
  const collections = await seedCollections(ctx, users, areas, questions)
  // Each private answer settles its question's and tags' unreleased counts by triggers that update those rows; in
  // one transaction this long every update leaves a version the next must read past (nothing can prune them before
  // the commit), so the load would grow quadratic. The counts are set once below, by the recomputation; the
  // answers waiting for their batch (unreleased_answers) are still kept by their own trigger, the one rule.
  const { votes, choiceVotes } = await withTriggersDisabled(db, UNRELEASED_COUNT_TRIGGERS, async () => ({
    votes: await seedQuestionVotes(ctx, users, questions, collections),
    choiceVotes: await seedChoiceVotes(ctx, users, questions, collections),
  }))
  await seedQuestionExtras(ctx, questions, votes.pool)
  const comments = await seedComments(ctx, users, questions, votes.pool)
  await seedSocial(ctx, users)
  const census = await seedCensus(ctx, areas)

  await syncIdentitySequences(db, SEEDED_TABLES)
  // Planner statistics first, so that the recomputation's GROUP BYs and joins get good plans.
  await analyze(db, SEEDED_TABLES)
  // Delegations decide each answer's liquid weight; the liquid figures then follow from the weights.
  await rebuildAllLiquid(db, true, (done, total) => progress('delegations', done, total))
  await recomputeStatistics(db, { onStep: (done, total) => progress('statistics', done, total) })
  await analyze(db, ['users', 'questions', 'question_choices', 'question_tags', 'comments', 'tags', 'areas', 'groups'])

  return {
    users: users.count,
    questions: questions.count,
    votes: votes.pool.count,
    choiceVotes: choiceVotes.votes,
    comments: comments.comments,
    collections: collections.count,
    areas: areas.count,
    census,
    tags,
    groups: groups.count,
    politicians,
  }
}
