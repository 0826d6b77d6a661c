import type { Selectable } from 'kysely'
import type { QuestionChoiceVotes, QuestionTagVotes, QuestionVotes } from '../../db/database.ts'
import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { Answer } from '../../engines/statistics/tally.ts'
import type { ChoiceVote, QuestionVote, TagVote } from './votes.schemas.ts'

/** Where the API root points the names question_votes and question_choice_votes (spec 4.5). */
export const QUESTION_VOTES_RESOURCE = 'question_votes_light'
export const CHOICE_VOTES_RESOURCE = 'question_choice_votes_light'
export const TAG_VOTES_RESOURCE = 'question_tag_votes'

/** How a stored vote counts in the direct figures: its rating, null for a skip. */
export function answerOfRow(row: { value: number | null }): Answer {
  return { value: row.value }
}

export function toQuestionVote(row: Selectable<QuestionVotes>, urls: UrlBuilder): QuestionVote {
  return {
    id: row.id,
    url: urls.detail(QUESTION_VOTES_RESOURCE, row.id),
    object_id: row.question_id,
    value: row.value,
    skipped: row.skipped,
    importance: row.importance,
    private: row.private,
    collection: row.collection_id,
    user: row.user_id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}

export function toChoiceVote(row: Selectable<QuestionChoiceVotes>, urls: UrlBuilder): ChoiceVote {
  return {
    id: row.id,
    url: urls.detail(CHOICE_VOTES_RESOURCE, row.id),
    object_id: row.choice_id,
    question: row.question_id,
    value: row.value,
    skipped: row.skipped,
    private: row.private,
    collection: row.collection_id,
    user: row.user_id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}

export type TagVoteRow = Selectable<QuestionTagVotes> & { question_id: number; tag_id: number }

export function toTagVote(row: TagVoteRow, urls: UrlBuilder): TagVote {
  return {
    id: row.id,
    url: urls.detail(TAG_VOTES_RESOURCE, row.id),
    object_id: row.question_tag_id,
    question: row.question_id,
    tag: row.tag_id,
    value: row.value,
    private: row.private,
    user: row.user_id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}
