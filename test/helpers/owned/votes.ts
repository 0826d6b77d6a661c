import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import { storingTally } from '../../../src/engines/figures/figures.repository.ts'
import { emptyFamily } from '../../../src/engines/statistics/tally.ts'
import { insertQuestion } from '../fixtures.ts'
import type { OwnedObjects } from './index.ts'

function oneAt(value: number) {
  const family = emptyFamily()
  family.counts[value - 1] = 1
  return family
}

/** Votes cast by their owner, with the figures they feed stored as a vote through the API would store them. */
async function ownLikertVote(db: Kysely<Database>, ownerId: number) {
  const question = await insertQuestion(db, ownerId, { subtype: 'likert' })
  const vote = await db
    .insertInto('question_votes')
    .values({ question_id: question.id, user_id: ownerId, value: 4 })
    .returning('id')
    .executeTakeFirstOrThrow()
  await storingTally(db, 'questions', question.id, { direct: oneAt(4), liquid: oneAt(4) }).execute()
  return { id: String(vote.id) }
}

async function ownChoiceVote(db: Kysely<Database>, ownerId: number) {
  const question = await insertQuestion(db, ownerId, { subtype: 'mcq' })
  const [choice] = await db
    .insertInto('question_choices')
    .values(['Yes', 'No'].map((text, store_number) => ({ question_id: question.id, text, store_number })))
    .returning('id')
    .execute()
  const vote = await db
    .insertInto('question_choice_votes')
    .values({ question_id: question.id, choice_id: choice.id, user_id: ownerId, value: 5 })
    .returning('id')
    .executeTakeFirstOrThrow()
  await storingTally(db, 'question_choices', choice.id, { direct: oneAt(5), liquid: oneAt(5) }).execute()
  return { id: String(vote.id) }
}

async function ownTagVote(db: Kysely<Database>, ownerId: number) {
  const question = await insertQuestion(db, ownerId)
  const tag = await db
    .insertInto('tags')
    .values({ text: `Fit ${question.slug}`, slug: `fit-${question.slug}` })
    .returning('id')
    .executeTakeFirstOrThrow()
  const questionTag = await db
    .insertInto('question_tags')
    .values({ question_id: question.id, tag_id: tag.id, position: 0 })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db.updateTable('questions').set({ topic_id: tag.id }).where('id', '=', question.id).execute()
  await db.updateTable('tags').set({ questions_count: 1 }).where('id', '=', tag.id).execute()
  const vote = await db
    .insertInto('question_tag_votes')
    .values({ question_tag_id: questionTag.id, user_id: ownerId, value: 5 })
    .returning('id')
    .executeTakeFirstOrThrow()
  await storingTally(db, 'question_tags', questionTag.id, { direct: oneAt(5), liquid: null }).execute()
  return { id: String(vote.id) }
}

export const owned: OwnedObjects = {
  '/api/question_votes/:id/': ownLikertVote,
  '/api/question_votes_light/:id/': ownLikertVote,
  '/api/question_choice_votes/:id/': ownChoiceVote,
  '/api/question_choice_votes_light/:id/': ownChoiceVote,
  '/api/question_tag_votes/:id/': ownTagVote,
}
