import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { fieldError, NotFound, ValidationFailed, invalidPk } from '../../core/errors.ts'
import { authoredQuestion } from '../../access/question-access.ts'
import { withPublishedFigures } from '../questions/published-figures.ts'
import { questionCounters } from '../questions/question-counters.repository.ts'
import { MCQ_CHOICES_MESSAGE } from '../questions/question-rules.ts'
import type { ChoiceRow } from '../questions/questions.repository.ts'
import { choicesRepository } from './choices.repository.ts'

/** Choices with the figures everyone sees (src/disclosure/figures.ts): one statement for their questions. */
export const publishedChoices = (db: Kysely<Database>, rows: ChoiceRow[], k: number) => withPublishedFigures(db, rows, 'choice', k)

function choiceText(text: string): string {
  const trimmed = text.trim()
  if (!trimmed) throw fieldError('text', 'This field may not be blank.')
  return trimmed
}

/*
 * Writes on the choices of multiple-choice questions, by the question's author or staff. A choice someone
 * chose keeps its text and stays; an mcq question keeps at least two choices. The question row is locked
 * so that answers and choice changes on it happen one at a time.
 */

/** A new last choice of one of the caller's mcq questions. */
export async function addChoice(db: Kysely<Database>, caller: Caller, questionId: number, sent: string): Promise<ChoiceRow> {
  const text = choiceText(sent)
  await authoredQuestion(db, caller, questionId)
  return db.transaction().execute(async (trx) => {
    const question = await questionCounters(trx).lockQuestion(questionId)
    if (!question) throw fieldError('question', invalidPk(questionId))
    if (question.subtype !== 'mcq')
      throw fieldError('question', 'Only multiple-choice questions have choices; make it one by editing the question with its choices.')
    return choicesRepository(trx).add(question.id, text)
  })
}

/** Runs `work` with the choice's question locked; 404 when the caller cannot see the choice, or it is gone by then. */
async function withLockedChoice<T>(
  db: Kysely<Database>,
  caller: Caller | null,
  choiceId: number,
  work: (choices: ReturnType<typeof choicesRepository>, choice: { id: number; question_id: number; text: string }) => Promise<T>,
): Promise<T> {
  const named = await choicesRepository(db).questionOf(choiceId, caller)
  if (!named) throw NotFound()
  return db.transaction().execute(async (trx) => {
    await questionCounters(trx).lockQuestion(named.question_id)
    const choices = choicesRepository(trx)
    const choice = await choices.find(choiceId)
    if (!choice) throw NotFound()
    return work(choices, choice)
  })
}

/** Rewords a choice nobody has chosen yet; without a text, the choice as it is. */
export async function rewordChoice(
  db: Kysely<Database>,
  caller: Caller | null,
  choiceId: number,
  sent: string | undefined,
): Promise<ChoiceRow> {
  return withLockedChoice(db, caller, choiceId, async (choices, choice) => {
    if (sent === undefined) return choices.row(choice.id)
    const text = choiceText(sent)
    if (text !== choice.text && (await choices.answered(choice.id)))
      throw fieldError('text', 'This choice has answers; its text cannot change.')
    return choices.reword(choice.id, text)
  })
}

/** Removes a choice nobody has chosen, as long as its question keeps two. */
export async function removeChoice(db: Kysely<Database>, caller: Caller | null, choiceId: number): Promise<void> {
  await withLockedChoice(db, caller, choiceId, async (choices, choice) => {
    if (await choices.answered(choice.id)) throw ValidationFailed({ non_field_errors: ['This choice has answers and cannot be removed.'] })
    if ((await choices.countOf(choice.question_id)) <= 2) throw ValidationFailed({ non_field_errors: [MCQ_CHOICES_MESSAGE] })
    await choices.remove(choice.id, choice.question_id)
  })
}
