import type { Kysely } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { Caller } from '../../../core/caller.ts'
import { fieldError, NotFound, invalidPk } from '../../../core/errors.ts'
import { refusingViolations } from '../../../core/constraint-errors.ts'
import { authoredQuestion } from '../../../access/question-access.ts'
import { withPublishedFigures } from '../published-figures.ts'
import { questionCounters } from '../question-counters.repository.ts'
import { retagQuestion } from '../retag.service.ts'
import { questionTagWrites, type QuestionTagRow } from './question-tags.repository.ts'

const DUPLICATE = { non_field_errors: ['The fields question, tag must make a unique set.'] }

/** Question-tags with the figures everyone sees (src/disclosure/figures.ts): one statement for their questions. */
export const publishedQuestionTags = (db: Kysely<Database>, rows: QuestionTagRow[], k: number) =>
  withPublishedFigures(db, rows, 'questionTag', k)

/** Tags one of the caller's questions (on a question without a topic, the tag becomes its topic); the new question-tag's id. */
export async function addQuestionTag(db: Kysely<Database>, caller: Caller, questionId: number, tagId: number): Promise<number> {
  await authoredQuestion(db, caller, questionId)
  return refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        const question = await questionCounters(trx).lockQuestion(questionId)
        if (!question) throw fieldError('question', invalidPk(questionId))
        const writes = questionTagWrites(trx)
        if (!(await writes.tagExists(tagId))) throw fieldError('tag', invalidPk(tagId))
        return retagQuestion(trx, questionId, caller.id, [tagId], () => writes.add(question, tagId))
      }),
    { named: { question_tags_unique: DUPLICATE, question_tags_tag_id_fkey: { tag: [invalidPk(tagId)] } } },
  )
}

/** Untags a question; removing the topic makes the next tag the topic. */
export async function removeQuestionTag(db: Kysely<Database>, caller: Caller, questionTagId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const writes = questionTagWrites(trx)
    const named = await writes.find(questionTagId)
    if (!named) throw NotFound()
    const question = await questionCounters(trx).lockQuestion(named.question_id)
    // Read again under the question's lock: a concurrent untagging may have come first.
    const questionTag = question ? await writes.find(questionTagId) : undefined
    if (!question || !questionTag) throw NotFound()
    await retagQuestion(trx, question.id, caller.id, [], () => writes.remove(question, questionTag))
  })
}
