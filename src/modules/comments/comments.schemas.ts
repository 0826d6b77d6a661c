import { Type, type Static } from 'typebox'
import { Id, IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../http/schemas.ts'
import { VoteSummary } from '../questions/questions.schemas.ts'

export const SUBTYPES = ['info', 'reason', 'suggestion'] as const
export type Subtype = (typeof SUBTYPES)[number]

export const MAX_TEXT = 10_000

/** A query-string boolean as django-filter reads it. */
export const QueryBoolean = Type.String({ pattern: '^(true|false|True|False|1|0)$', description: 'true or false (also 1 or 0)' })

export function queryBoolean(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined
  return value === 'true' || value === 'True' || value === '1'
}

/** The author as a comment shows them. */
export const CommentAuthor = Type.Object({
  id: Type.Integer(),
  url: Url,
  username: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  photo: Type.String({ format: 'uri', description: 'always a URL: a default avatar when the user has none' }),
})
export type CommentAuthor = Static<typeof CommentAuthor>

export const QuestionInfo = Type.Object({ id: Type.Integer(), url: Url, question: Type.String(), slug: Type.String() })

/** The caller's current vote on a comment, as my_vote lists it. */
export const OwnCommentVote = Type.Object({
  id: Type.Integer(),
  object_id: Type.Integer(),
  value: Type.Integer({ description: '5 up, 1 down' }),
  private: Type.Boolean(),
  active: Type.Boolean(),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type OwnCommentVote = Static<typeof OwnCommentVote>

export const Comment = Type.Object({
  id: Type.Integer(),
  url: Url,
  text: Type.String(),
  subtype: Type.Union([Type.Literal('info'), Type.Literal('reason'), Type.Literal('suggestion')]),
  parent: Nullable(Type.Integer({ description: 'the comment this one replies to; replies are listed flat' })),
  question: Type.Integer(),
  question_info: QuestionInfo,
  user: CommentAuthor,
  vote: Type.Array(VoteSummary, {
    description: "the author's current answer to the question: public answers only, unless the caller is the author",
  }),
  my_vote: Type.Array(OwnCommentVote, { description: "the caller's active vote on this comment, if any" }),
  direct_maximum: Type.Integer({
    description: 'active up votes (value 5) as published: a private vote, and every change of one, counts with a batch of MIN_CELL_SIZE',
  }),
  direct_minimum: Type.Integer({
    description: 'active down votes (value 1) as published: a private vote, and every change of one, counts with a batch of MIN_CELL_SIZE',
  }),
  is_hidden: Type.Boolean({ description: 'hidden by staff: seen only by staff and the author' }),
  report_count: Nullable(Type.Integer({ description: 'reports received; staff only, null for everyone else' })),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type Comment = Static<typeof Comment>

export const CommentListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  question: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
  parent: Type.Optional(IdFilter),
  parent__isnull: Type.Optional(QueryBoolean),
  subtype: Type.Optional(Type.String({ maxLength: 20 })),
  is_hidden: Type.Optional(QueryBoolean),
})
export type CommentListQuery = Static<typeof CommentListQuery>

const Text = Type.String({ maxLength: MAX_TEXT })
const SubtypeField = Type.String({ maxLength: 100, description: `one of ${SUBTYPES.join(', ')}` })

export const CommentCreate = Type.Object({
  text: Text,
  question: Id,
  subtype: Type.Optional(SubtypeField),
  parent: Type.Optional(Nullable(Id)),
})
export type CommentCreate = Static<typeof CommentCreate>

/** PATCH: text and subtype; question and parent are fixed once written. */
export const CommentPatch = Type.Object({
  text: Type.Optional(Text),
  subtype: Type.Optional(SubtypeField),
  question: Type.Optional(Id),
  parent: Type.Optional(Nullable(Id)),
})
export type CommentPatch = Static<typeof CommentPatch>

/** PUT: as PATCH, with the text required. */
export const CommentPut = Type.Object({ ...CommentPatch.properties, text: Text })

export const ReportBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) })
export type ReportBody = Static<typeof ReportBody>

export const Report = Type.Object({
  id: Type.Integer(),
  comment: Type.Integer(),
  reason: Type.String(),
  created_at: Timestamp,
})
