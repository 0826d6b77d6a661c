import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, invalidPk, fieldError } from '../../core/errors.ts'
import { applyAnswerChange } from '../../engines/figures/apply.ts'
import type { Answer } from '../../engines/statistics/tally.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { tagVotesRepository } from './tag-votes.repository.ts'
import { raceRefusals } from './vote-checks.ts'
import { voteContextRepository } from './vote-context.repository.ts'
import { existingIdShape } from './vote-input.ts'
import { canSee } from '../../access/question-access.ts'
import type { TagVoteRow } from './votes.mapper.ts'
import type { TagVoteBody, TagVotePatch } from './votes.schemas.ts'

/**
 * How well a tag fits a question: one current vote per user and question-tag, replaced by a new one.
 * Each write locks the question-tag row, whose direct figures move by the vote's delta. These votes
 * rate the tagging, not the question, so the question's voting window does not apply to them.
 */

const counted = (value: number): Answer => ({ value })

export async function castTagVote(
  db: Kysely<Database>,
  caller: Caller,
  body: TagVoteBody,
): Promise<{ vote: TagVoteRow; created: boolean }> {
  const questionTagId = existingIdShape('object_id', body.object_id)
  const work = async (trx: Transaction<Database>) => {
    const repository = tagVotesRepository(trx)
    const context = voteContextRepository(trx)
    const questionTag = await repository.lockQuestionTag(questionTagId)
    if (!questionTag || !canSee(caller, questionTag)) throw fieldError('object_id', invalidPk(questionTagId))
    const now = await context.now()
    const existing = await repository.current(caller.id, questionTagId)
    const values = { value: body.value, private: body.private ?? (await context.defaultPrivate(caller.id)), modified_at: now }
    const vote = existing
      ? await repository.update(existing.id, values, questionTag)
      : await repository.insert({ ...values, question_tag_id: questionTagId, user_id: caller.id, created_at: now }, questionTag)
    await applyAnswerChange(
      trx,
      'question_tags',
      questionTagId,
      questionTag.tally,
      existing ? counted(existing.value) : null,
      counted(vote.value),
    )
    return { vote, created: !existing }
  }
  return refusingViolations(() => db.transaction().execute(work), raceRefusals('question_tag', questionTagId, null))
}

async function lockVote(trx: Transaction<Database>, voteId: number) {
  const repository = tagVotesRepository(trx)
  const found = await repository.findById(voteId)
  if (!found) throw NotFound()
  const questionTag = await repository.lockQuestionTag(found.question_tag_id)
  const vote = questionTag && (await repository.lockById(voteId))
  if (!questionTag || !vote) throw NotFound()
  return { questionTag, vote, now: await voteContextRepository(trx).now() }
}

export async function editTagVote(db: Kysely<Database>, voteId: number, patch: TagVotePatch): Promise<TagVoteRow> {
  return db.transaction().execute(async (trx) => {
    const { questionTag, vote, now } = await lockVote(trx, voteId)
    const updated = await tagVotesRepository(trx).update(
      vote.id,
      {
        ...(patch.value !== undefined ? { value: patch.value } : {}),
        ...(patch.private !== undefined ? { private: patch.private } : {}),
        modified_at: now,
      },
      questionTag,
    )
    if (updated.value !== vote.value)
      await applyAnswerChange(trx, 'question_tags', questionTag.id, questionTag.tally, counted(vote.value), counted(updated.value))
    return updated
  })
}

export async function withdrawTagVote(db: Kysely<Database>, voteId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const { questionTag, vote } = await lockVote(trx, voteId)
    await tagVotesRepository(trx).remove(vote.id)
    await applyAnswerChange(trx, 'question_tags', questionTag.id, questionTag.tally, counted(vote.value), null)
  })
}
