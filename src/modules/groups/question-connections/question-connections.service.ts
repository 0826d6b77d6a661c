import type { Kysely } from 'kysely'
import type { Caller } from '../../../core/caller.ts'
import type { Database } from '../../../db/database.ts'
import { NotFound, PermissionDenied, fieldError, type FieldErrors, invalidPk, uniqueSet } from '../../../core/errors.ts'
import { iso } from '../../../core/time.ts'
import type { UrlBuilder } from '../../../core/urls.ts'
import { refusingViolations } from '../../../core/constraint-errors.ts'
import { groupAccess } from '../group-access.repository.ts'
import { groupsRepository } from '../groups.repository.ts'
import { questionConnectionsRepository, type QuestionConnectionRow } from './question-connections.repository.ts'
import type { QuestionConnection, QuestionConnectionChanges, QuestionConnectionCreate } from './question-connections.schemas.ts'

export function toQuestionConnection(row: QuestionConnectionRow, urls: UrlBuilder): QuestionConnection {
  return {
    id: row.id,
    url: urls.detail('group_question_connections', row.id),
    group: row.group_id,
    question: row.question_id,
    question_url: urls.detail('questions', row.question_id),
    active: row.active,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}

/** A group's administrator adds a question they can see to the group; a question is in a group once. */
export async function createQuestionConnection(
  db: Kysely<Database>,
  caller: Caller,
  body: QuestionConnectionCreate,
): Promise<QuestionConnectionRow> {
  return refusingViolations(
    async () => {
      if (!(await groupsRepository(db).find(body.group))) throw fieldError('group', invalidPk(body.group))
      if (!(await groupAccess(db).administers(caller, body.group)))
        throw PermissionDenied("Only the group's administrators can add questions to it.")
      const repository = questionConnectionsRepository(db)
      if (!(await repository.questionVisibleTo(body.question, caller))) throw fieldError('question', invalidPk(body.question))
      return repository.insert({
        group_id: body.group,
        question_id: body.question,
        ...(body.active !== undefined ? { active: body.active } : {}),
      })
    },
    {
      unique: uniqueSet('group', 'question'),
      missing: (constraint): FieldErrors =>
        constraint.includes('group') ? { group: [invalidPk(body.group)] } : { question: [invalidPk(body.question)] },
    },
  )
}

export async function updateQuestionConnection(
  db: Kysely<Database>,
  id: number,
  body: QuestionConnectionChanges,
): Promise<QuestionConnectionRow> {
  const repository = questionConnectionsRepository(db)
  const current = await repository.find(id)
  if (!current) throw NotFound()
  if (body.active === undefined || body.active === current.active) return current
  const updated = await repository.setActive(id, body.active)
  if (!updated) throw NotFound()
  return updated
}
