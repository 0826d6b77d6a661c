import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'

/**
 * The liquid-democracy scale: many users, questions with skewed popularity, tags on many questions,
 * delegations mostly by tag with hub trustees (so long chains and loops occur), all generated inside
 * PostgreSQL with a fixed random seed. Popularity follows floor(n · r^k) + 1 for uniform r: the larger
 * k, the more the first items are chosen.
 */
export interface LiquidScale {
  users: number
  questions: number
  tags: number
  votes: number
  tagDelegations: number
  questionDelegations: number
  /** Trustees are drawn from the first this-many users. */
  trusteePool: number
}

export const LIQUID_SCALES: Record<string, LiquidScale> = {
  full: {
    users: 1_000_000,
    questions: 10_000,
    tags: 500,
    votes: 10_000_000,
    tagDelegations: 950_000,
    questionDelegations: 50_000,
    trusteePool: 50_000,
  },
  small: {
    users: 100_000,
    questions: 2_000,
    tags: 200,
    votes: 1_000_000,
    tagDelegations: 95_000,
    questionDelegations: 5_000,
    trusteePool: 5_000,
  },
  tiny: { users: 5_000, questions: 200, tags: 40, votes: 50_000, tagDelegations: 4_750, questionDelegations: 250, trusteePool: 400 },
}

const step = async (label: string, work: () => Promise<unknown>) => {
  const started = performance.now()
  await work()
  console.error(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/** Fills an empty, migrated database. Deterministic for a given scale (one session, no parallel plans). */
export async function generateLiquidScale(db: Kysely<Database>, scale: LiquidScale): Promise<void> {
  await db.connection().execute(async (c) => {
    await sql`SET max_parallel_workers_per_gather = 0`.execute(c)
    await sql`SET synchronous_commit = off`.execute(c)
    await sql`SELECT setseed(0.42)`.execute(c)
    await step('users', () =>
      sql`
      INSERT INTO users (id, username, email, first_name, last_name)
      SELECT g, 'voter' || g, 'voter' || g || '@example.net', 'Voter', g::text FROM generate_series(1, ${scale.users}) g`.execute(c),
    )
    await step('tags', () =>
      sql`
      INSERT INTO tags (id, text, slug) SELECT g, 'Topic ' || g, 'topic-' || g FROM generate_series(1, ${scale.tags}) g`.execute(c),
    )
    await step('questions', () =>
      sql`
      INSERT INTO questions (id, user_id, question, slug, subtype)
      SELECT g, 1 + floor(random() * ${scale.users})::int, 'Question ' || g, 'question-' || g, 'likert'
      FROM generate_series(1, ${scale.questions}) g`.execute(c),
    )
    // One to five tags per question; the first drawn is the topic (position 0).
    await step('question tags', () =>
      sql`
      INSERT INTO question_tags (question_id, tag_id, position)
      SELECT question_id, tag_id, (row_number() OVER (PARTITION BY question_id ORDER BY first_draw) - 1)::int
      FROM (
        SELECT q AS question_id, 1 + floor(${scale.tags} * power(random(), 2.5))::int AS tag_id, min(d) AS first_draw
        FROM generate_series(1, ${scale.questions}) q
        CROSS JOIN LATERAL generate_series(1, 1 + floor(random() * 5)::int + (q * 0)) d
        GROUP BY 1, 2
      ) drawn`.execute(c),
    )
    await step('topics', () =>
      sql`
      UPDATE questions q SET topic_id = qt.tag_id FROM question_tags qt WHERE qt.question_id = q.id AND qt.position = 0`.execute(c),
    )
    await step('votes', () =>
      sql`
      INSERT INTO question_votes (question_id, user_id, value, skipped, private)
      SELECT question_id, user_id, CASE WHEN r < 0.03 THEN NULL ELSE 1 + floor(random() * 5)::int END, r < 0.03, random() < 0.10
      FROM (
        SELECT 1 + floor(${scale.questions} * power(random(), 3))::int AS question_id,
               1 + floor(random() * ${scale.users})::int AS user_id, random() AS r
        FROM generate_series(1, ${Math.round(scale.votes * 1.06)}) g
      ) drawn
      ON CONFLICT (user_id, question_id) DO NOTHING`.execute(c),
    )
    // Delegators are the first 60% of users; trustees come from a pool, the first of it much more often (hubs).
    await step('tag delegations', () =>
      sql`
      INSERT INTO tag_delegations (user_id, tag_id, trustee_id, priority)
      SELECT user_id, tag_id, CASE WHEN r < 0.02 THEN NULL ELSE trustee_id END, floor(random() * 3)::int
      FROM (
        SELECT 1 + floor(random() * ${Math.round(scale.users * 0.6)})::int AS user_id,
               1 + floor(${scale.tags} * power(random(), 2.5))::int AS tag_id,
               1 + floor(${scale.trusteePool} * power(random(), 4))::int AS trustee_id, random() AS r
        FROM generate_series(1, ${Math.round(scale.tagDelegations * 1.15)}) g
      ) drawn
      WHERE user_id <> trustee_id
      ON CONFLICT (user_id, tag_id) WHERE revoked_at IS NULL DO NOTHING`.execute(c),
    )
    await step('question delegations', () =>
      sql`
      INSERT INTO question_delegations (user_id, question_id, trustee_id)
      SELECT user_id, question_id, trustee_id
      FROM (
        SELECT 1 + floor(random() * ${scale.users})::int AS user_id,
               1 + floor(${scale.questions} * power(random(), 3))::int AS question_id,
               1 + floor(${scale.trusteePool} * power(random(), 4))::int AS trustee_id
        FROM generate_series(1, ${Math.round(scale.questionDelegations * 1.05)}) g
      ) drawn
      WHERE user_id <> trustee_id
      ON CONFLICT (user_id, question_id) WHERE revoked_at IS NULL DO NOTHING`.execute(c),
    )
    for (const table of ['users', 'tags', 'questions', 'question_tags', 'question_votes', 'tag_delegations', 'question_delegations']) {
      await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), (SELECT coalesce(max(id), 1) FROM ${sql.table(table)}))`.execute(c)
    }
    await step('analyze', () => sql`ANALYZE`.execute(c))
  })
}
