import { sql } from 'kysely'
import { copyIn } from '../../db/copy-in.ts'
import type { Db } from '../../db/types.ts'

/** A question of the import: its author's account, text, slug, time and stored figures. */
export interface ImportedQuestion {
  userId: number
  text: string
  slug: string
  createdAt: Date
  /** False: a draft, kept for its answers, never asked or shown but to staff. */
  publish: boolean
  figures: Record<string, number>
}

/** The account that owns every imported collection: Pol.is exports do not name a conversation's owner. */
export const IMPORT_ACCOUNT = 'polis-import'

/** The SQL of `civic-survey import-polis` (polis.import.ts), run inside its one transaction. */
export function polisImportRepository(trx: Db) {
  return {
    /** Imports run one at a time, so the second of two imports of one conversation sees the first's accounts. */
    async lockImports(): Promise<void> {
      await sql`SELECT pg_advisory_xact_lock(hashtext('civic-survey import-polis'))`.execute(trx)
    },

    /** Which of these usernames are taken (compared as the unique index compares them, lowercased). */
    async takenUsernames(usernames: string[]): Promise<string[]> {
      const { rows } = await sql<{ username: string }>`SELECT username FROM users
        WHERE lower(username) = ANY(${usernames.map((u) => u.toLowerCase())}::text[]) ORDER BY id`.execute(trx)
      return rows.map((row) => row.username)
    },

    /** The first collection these accounts answered in (the collection an earlier import made). */
    async collectionAnsweredBy(usernames: string[]): Promise<{ id: number; name: string } | undefined> {
      const { rows } = await sql<{ id: number; name: string }>`SELECT c.id, c.name FROM question_collections c
        WHERE c.id IN (SELECT v.collection_id FROM users u JOIN question_votes v ON v.user_id = u.id
          WHERE lower(u.username) = ANY(${usernames.map((u) => u.toLowerCase())}::text[]))
        ORDER BY c.id LIMIT 1`.execute(trx)
      return rows[0]
    },

    /** The account by this name, made without password or e-mail when there is none. */
    async accountMadeOnce(username: string): Promise<{ id: number; password_hash: string | null; email: string | null }> {
      await sql`INSERT INTO users (username) VALUES (${username}) ON CONFLICT ((lower(username))) DO NOTHING`.execute(trx)
      return trx
        .selectFrom('users')
        .select(['id', 'password_hash', 'email'])
        .where(sql`lower(username)`, '=', username.toLowerCase())
        .executeTakeFirstOrThrow()
    },

    /** New accounts without password or e-mail: their ids by username, one statement. */
    async insertAccounts(usernames: string[]): Promise<Map<string, number>> {
      const { rows } = await sql<{ id: number; username: string }>`INSERT INTO users (username)
        SELECT unnest(${usernames}::text[]) RETURNING id, username`.execute(trx)
      return new Map(rows.map((row) => [row.username, row.id]))
    },

    async insertCollection(userId: number, name: string, description: string | null, questions: number): Promise<number> {
      const row = await trx
        .insertInto('question_collections')
        .values({ user_id: userId, name, desc: description, question_count: questions, item_count: questions })
        .returning('id')
        .executeTakeFirstOrThrow()
      return row.id
    },

    /** The slugs in use that are one of these bases or one of them with a -N suffix. */
    async slugsTaken(bases: string[]): Promise<string[]> {
      const { rows } = await sql<{ slug: string }>`SELECT slug FROM questions
        WHERE slug IN (SELECT unnest(${bases}::text[]))
          OR regexp_replace(slug, '-[0-9]+$', '') IN (SELECT unnest(${bases}::text[]))`.execute(trx)
      return rows.map((row) => row.slug)
    },

    /**
     * Likert questions with their figures, published or not, one statement. A slug taken meanwhile by another writer
     * skips its row (the caller tries again with another): the ids of the rows written, by slug.
     */
    async insertQuestions(questions: ImportedQuestion[], figureColumns: string[]): Promise<Map<string, number>> {
      const figures = sql.raw(figureColumns.join(', '))
      const fromRow = sql.raw(figureColumns.map((column) => `u.${column}`).join(', '))
      // Counts travel as float8 (a whole number, which int4 takes back exactly); the figures are generated from them.
      const figureParams = figureColumns.map((column) => sql`${questions.map((q) => q.figures[column])}::float8[]`)
      const { rows } = await sql<{ id: number; slug: string }>`
        INSERT INTO questions (user_id, question, slug, subtype, publish, created_at, modified_at, ${figures})
        SELECT u.user_id, u.question, u.slug, 'likert', u.publish, u.created_at, u.created_at, ${fromRow}
        FROM unnest(${questions.map((q) => q.userId)}::int4[], ${questions.map((q) => q.text)}::text[],
          ${questions.map((q) => q.slug)}::text[], ${questions.map((q) => q.publish)}::bool[],
          ${questions.map((q) => q.createdAt.toISOString())}::timestamptz[],
          ${sql.join(figureParams)}) AS u(user_id, question, slug, publish, created_at, ${figures})
        ON CONFLICT (slug) DO NOTHING
        RETURNING id, slug`.execute(trx)
      return new Map(rows.map((row) => [row.slug, row.id]))
    },

    /** The questions as the collection's items, ordered by `orders` (the comment ids). */
    async insertItems(collectionId: number, questionIds: number[], orders: number[]): Promise<void> {
      await sql`INSERT INTO question_collection_items (parent_id, type, question_id, "order")
        SELECT ${collectionId}, 'Q', u.question_id, u.position
        FROM unnest(${questionIds}::int4[], ${orders}::int4[]) AS u(question_id, position)`.execute(trx)
    },

    /** Answers as COPY text lines: question, user, value, collection, and (with `timed`) created_at and modified_at. */
    async copyAnswers(lines: AsyncIterable<string>, timed: boolean): Promise<void> {
      const columns = `question_id, user_id, value, collection_id, private${timed ? ', created_at, modified_at' : ''}`
      await copyIn(trx, `COPY question_votes (${columns}) FROM STDIN`, lines)
    },

    /**
     * The counters of new accounts, from their rows as `civic-survey recompute` counts them. A new account has no
     * choice answers, comments, memberships, follows or friends: those counters stay 0.
     */
    async countNewAccounts(userIds: number[]): Promise<void> {
      // Joined to the list rather than tested with = ANY(list): that test reads the whole list for every row.
      await sql`WITH accounts AS (SELECT unnest(${userIds}::int4[]) AS id),
        answered AS (SELECT v.user_id, count(*) AS n, max(v.modified_at) AS last,
            count(*) FILTER (WHERE NOT v.private) AS public_n, max(v.modified_at) FILTER (WHERE NOT v.private) AS public_last
          FROM question_votes v JOIN accounts a ON a.id = v.user_id GROUP BY v.user_id),
        authored AS (SELECT q.user_id, count(*) AS n FROM questions q JOIN accounts a ON a.id = q.user_id GROUP BY q.user_id),
        authors AS (UPDATE users u SET count_questions = coalesce(q.n, 0)
          FROM accounts x LEFT JOIN authored q ON q.user_id = x.id WHERE u.id = x.id)
        UPDATE user_answer_counts c SET
          count_votes = coalesce(v.n, 0), count_question_votes = coalesce(v.n, 0), last_answer_time = v.last,
          public_count_votes = coalesce(v.public_n, 0), public_count_question_votes = coalesce(v.public_n, 0),
          public_last_answer_time = v.public_last
        FROM accounts x LEFT JOIN answered v ON v.user_id = x.id
        WHERE c.id = x.id`.execute(trx)
    },
  }
}
