import type { Insertable, Kysely } from 'kysely'
import type { Database, Questions } from '../../src/db/database.ts'
import { insertQuestion } from '../helpers/fixtures.ts'

/** Rows the next-question tests share: collections, mcq questions, tags and group connections. */

export async function mcq(db: Kysely<Database>, authorId: number, values: Partial<Insertable<Questions>> = {}) {
  const question = await insertQuestion(db, authorId, { subtype: 'mcq', ...values })
  const choices = await db
    .insertInto('question_choices')
    .values([0, 1, 2].map((i) => ({ question_id: question.id, text: `Option ${i}`, store_number: i })))
    .returning('id')
    .execute()
  return { ...question, choiceIds: choices.map((row) => row.id) }
}

/** A collection holding the questions with the given item orders, plus a text block that is no question. */
export async function collection(db: Kysely<Database>, ownerId: number, items: { questionId: number; order: number }[]) {
  const parent = await db
    .insertInto('question_collections')
    .values({ user_id: ownerId, name: 'A walk' })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db
    .insertInto('question_collection_items')
    .values({ parent_id: parent.id, type: 'B', content: JSON.stringify({ text: 'Intro' }), order: 0 })
    .execute()
  for (const item of items) {
    await db
      .insertInto('question_collection_items')
      .values({ parent_id: parent.id, type: 'Q', question_id: item.questionId, order: item.order })
      .execute()
  }
  return parent.id
}

export async function tagged(db: Kysely<Database>, tagId: number, questionIds: number[]) {
  if (questionIds.length)
    await db
      .insertInto('question_tags')
      .values(questionIds.map((question_id) => ({ question_id, tag_id: tagId })))
      .execute()
}

export async function inGroup(db: Kysely<Database>, groupId: number, questionIds: number[], active = true) {
  if (questionIds.length)
    await db
      .insertInto('group_question_connections')
      .values(questionIds.map((question_id) => ({ question_id, group_id: groupId, active })))
      .execute()
}

const HOUR = 3600_000
export const hoursFromNow = (hours: number) => new Date(Date.now() + hours * HOUR)
