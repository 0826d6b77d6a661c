import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../db/database.ts'
import type { Caller } from '../core/caller.ts'
import { fieldError, PermissionDenied, invalidPk } from '../core/errors.ts'

/** Whether a question is there for the caller: published, or theirs, or the caller is staff. */
export function canSee(caller: Caller | null, question: { user_id: number; publish: boolean }): boolean {
  return question.publish || caller?.isStaff === true || caller?.id === question.user_id
}

/**
 * The author of a question the caller may see, for the owner rule; undefined (404) when there is no such
 * question or it is someone else's draft, so a draft's existence does not leak through a 403.
 */
export async function questionOwner(db: Kysely<Database>, caller: Caller | null, questionId: number | null): Promise<number | undefined> {
  if (questionId === null) return undefined
  const question = await db.selectFrom('questions').select(['user_id', 'publish']).where('id', '=', questionId).executeTakeFirst()
  return question && canSee(caller, question) ? question.user_id : undefined
}

/** The question named in a body, if the caller may see it (writes on related resources refuse others' drafts). */
export async function visibleQuestion(db: Kysely<Database>, caller: Caller | null, questionId: number) {
  const question = await db.selectFrom('questions').select(['id', 'user_id', 'publish']).where('id', '=', questionId).executeTakeFirst()
  return question && canSee(caller, question) ? question : undefined
}

/** The same rule as a condition on the `questions` table of a query, for listings of things hanging off questions. */
export function questionVisibleSql(caller: Caller | null, table = 'questions'): RawBuilder<boolean> {
  if (caller?.isStaff) return sql<boolean>`true`
  if (caller) return sql<boolean>`(${sql.ref(`${table}.publish`)} OR ${sql.ref(`${table}.user_id`)} = ${caller.id})`
  return sql<boolean>`${sql.ref(`${table}.publish`)}`
}

/**
 * For writes that name a question in their body and belong to its author (links, tags, choices): the question
 * when the caller is its author or staff; 400 on the field when the caller cannot see it, 403 when it is not theirs.
 */
export async function authoredQuestion(db: Kysely<Database>, caller: Caller, questionId: number, field = 'question') {
  const question = await visibleQuestion(db, caller, questionId)
  if (!question) throw fieldError(field, invalidPk(questionId))
  if (question.user_id !== caller.id && !caller.isStaff) throw PermissionDenied()
  return question
}
