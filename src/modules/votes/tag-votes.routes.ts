import type { App } from '../../http/app-type.ts'
import { column } from '../../db/ordering.ts'
import { TAG_VOTE_ORDERING, tagVotesRepository } from './tag-votes.repository.ts'
import { castTagVote, editTagVote, withdrawTagVote } from './tag-votes.service.ts'
import { voteResourceRoutes } from './vote-resource.routes.ts'
import { toTagVote, type TagVoteRow } from './votes.mapper.ts'
import { TagVote, TagVoteBody, TagVoteListQuery, TagVotePatch } from './votes.schemas.ts'

/** Votes on how well a tag fits a question. */
export function tagVoteRoutes(app: App): void {
  voteResourceRoutes<TagVoteRow, TagVote, TagVoteListQuery, TagVoteBody, TagVotePatch>(app, {
    names: ['question_tag_votes'],
    label: 'Votes on how well a tag fits a question',
    description: 'Votes 1..5 on the tags of questions, one current vote per person and question-tag.',
    item: TagVote,
    listQuery: TagVoteListQuery,
    createBody: TagVoteBody,
    patchBody: TagVotePatch,
    ordering: TAG_VOTE_ORDERING,
    tieBreak: column('question_tag_votes.id'),
    filtered: (filters, caller) => tagVotesRepository(app.db).filtered(filters, caller),
    select: (query) => query.selectAll('question_tag_votes').select(['question_tags.question_id', 'question_tags.tag_id']),
    byId: (query, id) => query.where('question_tag_votes.id', '=', id),
    toItem: toTagVote,
    cast: (caller, body) => castTagVote(app.db, caller, body),
    edit: (id, patch) => editTagVote(app.db, id, patch),
    audited: 'tag',
    withdraw: (id) => withdrawTagVote(app.db, id),
  })
}
