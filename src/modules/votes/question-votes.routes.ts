import type { App } from '../../http/app-type.ts'
import { questionVotesRepository, type QuestionVoteRow } from './question-votes.repository.ts'
import { castQuestionVote, editQuestionVote, withdrawQuestionVote } from './question-votes.service.ts'
import { voteResourceRoutes } from './vote-resource.routes.ts'
import { toQuestionVote } from './votes.mapper.ts'
import { QuestionVote, QuestionVoteBody, QuestionVoteListQuery, QuestionVotePatch } from './votes.schemas.ts'

/**
 * Answers to likert questions. `question_votes` is what the clients call and `question_votes_light`
 * where the API root points that name: both URLs serve the same resource.
 */
export function questionVoteRoutes(app: App): void {
  voteResourceRoutes<QuestionVoteRow, QuestionVote, QuestionVoteListQuery, QuestionVoteBody, QuestionVotePatch>(app, {
    names: ['question_votes', 'question_votes_light'],
    label: 'Answers to likert questions',
    description: 'Answers to likert questions, with their value 1..5 or a skip.',
    item: QuestionVote,
    listQuery: QuestionVoteListQuery,
    createBody: QuestionVoteBody,
    patchBody: QuestionVotePatch,
    page: (filters, caller, list) => questionVotesRepository(app.db).page(filters, caller, list),
    visible: (id, caller) => questionVotesRepository(app.db).visible(id, caller),
    toItem: toQuestionVote,
    cast: (caller, body) => castQuestionVote(app.db, caller, body),
    ownAnswer: (vote) => vote,
    edit: (id, patch) => editQuestionVote(app.db, id, patch),
    audited: 'question',
    answerKind: 'likert',
    withdraw: (id) => withdrawQuestionVote(app.db, id),
  })
}
