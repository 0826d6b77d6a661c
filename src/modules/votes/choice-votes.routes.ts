import type { App } from '../../http/app-type.ts'
import { choiceVotesRepository, type ChoiceVoteRow } from './choice-votes.repository.ts'
import { castChoiceVote, editChoiceVote, withdrawChoiceVote } from './choice-votes.service.ts'
import { voteResourceRoutes } from './vote-resource.routes.ts'
import { toChoiceVote } from './votes.mapper.ts'
import { ChoiceVote, ChoiceVoteBody, ChoiceVoteListQuery, ChoiceVotePatch } from './votes.schemas.ts'

/** Answers to multiple-choice questions, under the name the clients call and the one the API root gives. */
export function choiceVoteRoutes(app: App): void {
  voteResourceRoutes<ChoiceVoteRow, ChoiceVote, ChoiceVoteListQuery, ChoiceVoteBody, ChoiceVotePatch>(app, {
    names: ['question_choice_votes', 'question_choice_votes_light'],
    label: 'Answers to multiple-choice questions',
    description: 'Picks of a choice of a multiple-choice question, one current pick per person and question.',
    item: ChoiceVote,
    listQuery: ChoiceVoteListQuery,
    createBody: ChoiceVoteBody,
    patchBody: ChoiceVotePatch,
    page: (filters, caller, list) => choiceVotesRepository(app.db).page(filters, caller, list),
    visible: (id, caller) => choiceVotesRepository(app.db).visible(id, caller),
    toItem: toChoiceVote,
    cast: (caller, body) => castChoiceVote(app.db, caller, body),
    ownAnswer: (vote) => vote,
    edit: (id, patch) => editChoiceVote(app.db, id, patch),
    audited: 'choice',
    answerKind: 'choice',
    withdraw: (id) => withdrawChoiceVote(app.db, id),
  })
}
