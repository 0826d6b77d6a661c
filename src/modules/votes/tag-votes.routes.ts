import type { App } from '../../http/app-type.ts'
import { tagVotesRepository } from './tag-votes.repository.ts'
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
    page: (filters, caller, list) => tagVotesRepository(app.db).page(filters, caller, list),
    visible: (id, caller) => tagVotesRepository(app.db).visible(id, caller),
    toItem: toTagVote,
    cast: (caller, body) => castTagVote(app.db, caller, body),
    edit: (id, patch) => editTagVote(app.db, id, patch),
    audited: 'tag',
    withdraw: (id) => withdrawTagVote(app.db, id),
  })
}
