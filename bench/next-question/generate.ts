import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'

/**
 * The next-question scale: 100,000 published questions open for answers (every 51st id is a draft or a
 * closed one besides), a tenth of them mcq, tags with skewed popularity, one 500-question collection, a
 * background of other users' answers, and three users to measure: one who answered a random half, one who
 * answered the first half in serving order (id order), one who answered nothing. Generated inside
 * PostgreSQL with a fixed seed.
 */
export const NQ_SCALE = {
  questions: 102_000, // 100,000 of them published and open
  backgroundUsers: 20_000,
  backgroundAnswers: 2_000_000,
  tags: 200,
  collectionSize: 500,
  heavyAnswers: 50_000,
}
export const USERS = {
  heavyRandom: NQ_SCALE.backgroundUsers + 1,
  heavyFirst: NQ_SCALE.backgroundUsers + 2,
  fresh: NQ_SCALE.backgroundUsers + 3,
}
export const COLLECTION_ID = 1

const step = async (label: string, work: () => Promise<unknown>) => {
  const started = performance.now()
  await work()
  console.error(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

export async function generateNextQuestionScale(db: Kysely<Database>): Promise<void> {
  const s = NQ_SCALE
  await db.connection().execute(async (c) => {
    await sql`SET synchronous_commit = off`.execute(c)
    await sql`SELECT setseed(0.23)`.execute(c)
    await step('users', () =>
      sql`
      INSERT INTO users (id, username, email, first_name, last_name)
      SELECT g, 'person' || g, 'person' || g || '@example.net', 'Person', g::text FROM generate_series(1, ${s.backgroundUsers + 3}) g`.execute(
        c,
      ),
    )
    await step('tags', () =>
      sql`INSERT INTO tags (id, text, slug) SELECT g, 'Topic ' || g, 'topic-' || g FROM generate_series(1, ${s.tags}) g`.execute(c),
    )
    // Every 51st id: a draft, or a window that closed yesterday, alternately.
    await step('questions', () =>
      sql`
      INSERT INTO questions (id, user_id, question, slug, subtype, publish, start_at, end_at, liquid_minimum, liquid_medium, liquid_maximum)
      SELECT g, 1 + (g * 7919) % ${s.backgroundUsers}, 'Question ' || g || ' on topic ' || (1 + g % ${s.tags}), 'question-' || g,
             CASE WHEN g % 10 = 3 THEN 'mcq' ELSE 'likert' END,
             NOT (g % 51 = 0 AND g % 102 = 0),
             CASE WHEN g % 51 = 0 AND g % 102 <> 0 THEN now() - interval '30 days' END,
             CASE WHEN g % 51 = 0 AND g % 102 <> 0 THEN now() - interval '1 day' END,
             floor(random() * 200)::int, floor(random() * 100)::int, floor(random() * 200)::int
      FROM generate_series(1, ${s.questions}) g`.execute(c),
    )
    await step('choices', () =>
      sql`
      INSERT INTO question_choices (question_id, text, store_number)
      SELECT q.id, 'Option ' || n, n FROM questions q CROSS JOIN generate_series(0, 2) n WHERE q.subtype = 'mcq'`.execute(c),
    )
    await step('question tags', () =>
      sql`
      INSERT INTO question_tags (question_id, tag_id)
      SELECT DISTINCT q, 1 + floor(${s.tags} * power(random(), 2.5))::int
      FROM generate_series(1, ${s.questions}) q CROSS JOIN LATERAL generate_series(1, 1 + (q % 3)) d`.execute(c),
    )
    await step('collection', async () => {
      await sql`INSERT INTO question_collections (id, user_id, name) VALUES (${COLLECTION_ID}, 1, 'A long walk')`.execute(c)
      // Spread over the whole id range, its item order unrelated to id order.
      await sql`
        INSERT INTO question_collection_items (parent_id, type, question_id, "order")
        SELECT ${COLLECTION_ID}, 'Q', g * 199, (g * 37) % ${s.collectionSize} FROM generate_series(1, ${s.collectionSize}) g`.execute(c)
    })
    // Background: popular questions get most answers; mcq answers go to a choice.
    await step('background answers', async () => {
      await sql`
        CREATE TEMP TABLE drawn AS
        SELECT DISTINCT ON (question_id, user_id) question_id, user_id, r
        FROM (SELECT 1 + floor(${s.questions} * power(random(), 2))::int AS question_id, 1 + floor(random() * ${s.backgroundUsers})::int AS user_id, random() AS r
              FROM generate_series(1, ${s.backgroundAnswers}) g) d`.execute(c)
      await sql`
        INSERT INTO question_votes (question_id, user_id, value, skipped, private)
        SELECT d.question_id, d.user_id, CASE WHEN d.r < 0.03 THEN NULL ELSE 1 + floor(d.r * 5)::int END, d.r < 0.03, d.r > 0.9
        FROM drawn d JOIN questions q ON q.id = d.question_id WHERE q.subtype = 'likert'`.execute(c)
      await sql`
        INSERT INTO question_choice_votes (question_id, choice_id, user_id, value, skipped, private)
        SELECT d.question_id, ch.id, d.user_id, CASE WHEN d.r < 0.03 THEN NULL ELSE 5 END, d.r < 0.03, d.r > 0.9
        FROM drawn d JOIN question_choices ch ON ch.question_id = d.question_id AND ch.store_number = floor(d.r * 3)::int`.execute(c)
      await sql`DROP TABLE drawn`.execute(c)
    })
    await step('heavy users', async () => {
      const open = sql`SELECT id, subtype FROM questions WHERE publish AND end_at IS NULL`
      await sql`CREATE TEMP TABLE heavy AS
        (SELECT ${USERS.heavyRandom}::int AS user_id, id, subtype FROM (${open}) o ORDER BY random() LIMIT ${s.heavyAnswers})
        UNION ALL (SELECT ${USERS.heavyFirst}::int, id, subtype FROM (${open}) o ORDER BY id LIMIT ${s.heavyAnswers})`.execute(c)
      await sql`
        INSERT INTO question_votes (question_id, user_id, value, skipped)
        SELECT id, user_id, CASE WHEN id % 33 = 0 THEN NULL ELSE 1 + id % 5 END, id % 33 = 0 FROM heavy WHERE subtype = 'likert'`.execute(c)
      await sql`
        INSERT INTO question_choice_votes (question_id, choice_id, user_id, value, skipped)
        SELECT h.id, ch.id, h.user_id, CASE WHEN h.id % 33 = 0 THEN NULL ELSE 5 END, h.id % 33 = 0
        FROM heavy h JOIN question_choices ch ON ch.question_id = h.id AND ch.store_number = 0 WHERE h.subtype = 'mcq'`.execute(c)
      await sql`DROP TABLE heavy`.execute(c)
    })
    for (const table of [
      'users',
      'tags',
      'questions',
      'question_choices',
      'question_tags',
      'question_collections',
      'question_collection_items',
      'question_votes',
      'question_choice_votes',
    ]) {
      await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), (SELECT coalesce(max(id), 1) FROM ${sql.table(table)}))`.execute(c)
    }
    await step('vacuum analyze', () => sql`VACUUM ANALYZE`.execute(c))
  })
}
