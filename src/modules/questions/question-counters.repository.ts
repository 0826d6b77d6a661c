import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { lockQuestionAnswers } from '../../db/answer-gate.ts'

/**
 * The counters recomputeStatistics derives from questions, kept in step by each write in its own
 * transaction: users' count_questions, tags' questions_count and votes_count (a tag counts the
 * questions carrying it as a question-tag or as their topic, and their likert answers), areas'
 * question_count and collections' question_count and item_count. Every change is an increment, so
 * concurrent writers never lose one another's updates. Locks are taken in the order answering
 * transactions take them: the answers' gate, the question row, then user rows, then tag rows in id order (lockTags).
 */
const QUESTION_LOCKED = ['id', 'user_id', 'topic_id', 'geo_id', 'group_id', 'subtype', 'question', 'start_at', 'end_at', 'publish'] as const

export function questionCounters(trx: Kysely<Database>) {
  return {
    /**
     * The question row, locked until the transaction ends, after the answers to it (lock_question_answers): answers
     * and other edits of it wait. NO KEY UPDATE lets comments and collection items referencing it go on.
     */
    async lockQuestion(questionId: number) {
      await lockQuestionAnswers(trx, [questionId])
      return trx.selectFrom('questions').select(QUESTION_LOCKED).where('id', '=', questionId).forNoKeyUpdate().executeTakeFirst()
    },

    /** Locked for deletion: nothing can reference the question any more until the transaction ends. */
    async lockQuestionForRemoval(questionId: number) {
      await lockQuestionAnswers(trx, [questionId])
      return trx.selectFrom('questions').select(QUESTION_LOCKED).where('id', '=', questionId).forUpdate().executeTakeFirst()
    },

    /** Tags the question counts its answers in (question_tag_ids, the database's one definition). */
    async carriedTags(questionId: number): Promise<Set<number>> {
      const { rows } = await sql<{ tag_id: number }>`SELECT question_tag_ids(${questionId}::integer) AS tag_id`.execute(trx)
      return new Set(rows.map((row) => row.tag_id))
    },

    /** Whether anyone answered the question, likert or by choice (skips included). */
    async isAnswered(questionId: number): Promise<boolean> {
      const row = await trx
        .selectNoFrom((eb) => [
          eb
            .or([
              eb.exists(eb.selectFrom('question_votes').select('id').where('question_id', '=', questionId)),
              eb.exists(eb.selectFrom('question_choice_votes').select('id').where('question_id', '=', questionId)),
            ])
            .as('answered'),
        ])
        .executeTakeFirstOrThrow()
      return Boolean(row.answered)
    },

    /**
     * Tag rows locked in id order, the order every answering transaction takes them in. Call it before
     * inserting rows that reference the tags: a foreign-key check holds a tag in no particular order.
     * NO KEY UPDATE, like the counter updates themselves, so others' foreign-key checks do not wait on it.
     */
    async lockTags(tagIds: Iterable<number>): Promise<void> {
      const ids = [...new Set(tagIds)]
      if (ids.length) await trx.selectFrom('tags').select('id').where('id', 'in', ids).orderBy('id').forNoKeyUpdate().execute()
    },

    /** Tags gained or lost by a question move its count and its likert answers between them. */
    async retag(questionId: number, before: Set<number>, after: Set<number>): Promise<void> {
      const gained = [...after].filter((id) => !before.has(id))
      const lost = [...before].filter((id) => !after.has(id))
      if (gained.length === 0 && lost.length === 0) return
      const { n } = await trx
        .selectFrom('question_votes')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('question_id', '=', questionId)
        .executeTakeFirstOrThrow()
      const answers = Number(n)
      await this.lockTags([...gained, ...lost])
      for (const [ids, sign] of [
        [gained, 1],
        [lost, -1],
      ] as const) {
        if (ids.length === 0) continue
        await trx
          .updateTable('tags')
          .set({ questions_count: sql`questions_count + ${sign}`, votes_count: sql`votes_count + ${sign * answers}` })
          .where('id', 'in', ids)
          .execute()
      }
    },

    async moveArea(before: number | null, after: number | null): Promise<void> {
      if (before === after) return
      if (before !== null)
        await trx
          .updateTable('areas')
          .set({ question_count: sql`question_count - 1` })
          .where('id', '=', before)
          .execute()
      if (after !== null)
        await trx
          .updateTable('areas')
          .set({ question_count: sql`question_count + 1` })
          .where('id', '=', after)
          .execute()
    },

    async addAuthorQuestions(userId: number, delta: number): Promise<void> {
      await trx
        .updateTable('users')
        .set({ count_questions: sql`count_questions + ${delta}` })
        .where('id', '=', userId)
        .execute()
    },

    /** Each collection gained (or lost) one question item. */
    async addCollectionQuestions(collectionIds: number[], delta: number): Promise<void> {
      if (collectionIds.length === 0) return
      await trx
        .updateTable('question_collections')
        .set({ question_count: sql`question_count + ${delta}`, item_count: sql`item_count + ${delta}` })
        .where('id', 'in', collectionIds)
        .execute()
    },
  }
}

export type QuestionCounters = ReturnType<typeof questionCounters>
