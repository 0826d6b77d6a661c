import { Type, type Static } from 'typebox'
import { ListQuery, Nullable, RelatedId, Timestamp, Url } from '../../http/schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'

/**
 * An integer or null as one JSON type list, not a union: with type coercion on, a union's null branch
 * would turn a refused 0 into null. "" in a form still reads as null.
 */
function NullableInteger(options: { minimum?: number; maximum?: number; description?: string } = {}) {
  return Type.Unsafe<number | null>({ type: ['integer', 'null'], ...options })
}

/** A rating 1..5. */
const Rating = Type.Integer({ minimum: 1, maximum: 5, description: 'minimum 1 … maximum 5' })
/** A rating, or null (or "" in a form) for a skip. */
const RatingOrSkip = NullableInteger({ minimum: 1, maximum: 5, description: 'minimum 1 … maximum 5; null skips' })
const Importance = NullableInteger({ minimum: 1, maximum: 5, description: 'how much the question matters to the voter' })
/** Object ids are checked against the table, so that any bad value reads `Invalid pk "N" - object does not exist.` */
const ObjectId = RelatedId('id of the object voted on')
const Analytics = Type.Optional(Nullable(Type.String({ description: 'stored for analysis, cut to 1000 characters, never shown' })))

const analyticsFields = {
  analytics_interface: Analytics,
  analytics_os: Analytics,
  analytics_browser: Analytics,
  analytics_parent_url: Analytics,
  analytics_location: Analytics,
}

/** POST /api/question_votes/ as the web app, the old web app and the chatbot send it. */
export const QuestionVoteBody = Type.Object({
  object_id: ObjectId,
  value: Type.Optional(RatingOrSkip),
  skipped: Type.Optional(Type.Boolean({ description: 'true with no value: the question is skipped' })),
  importance: Type.Optional(Importance),
  private: Type.Optional(Type.Boolean({ description: "hidden from others; the user's default when absent" })),
  collection: Type.Optional(NullableInteger({ description: 'the collection the answer was given in' })),
  ...analyticsFields,
})
export type QuestionVoteBody = Static<typeof QuestionVoteBody>

export const QuestionVotePatch = Type.Object({
  value: Type.Optional(RatingOrSkip),
  skipped: Type.Optional(Type.Boolean()),
  importance: Type.Optional(Importance),
  private: Type.Optional(Type.Boolean()),
  collection: Type.Optional(NullableInteger({ description: 'the collection the answer was given in' })),
})
export type QuestionVotePatch = Static<typeof QuestionVotePatch>

/** POST /api/question_choice_votes/: object_id is the chosen choice; the web app sends value 5. */
export const ChoiceVoteBody = Type.Object({
  object_id: ObjectId,
  value: Type.Optional(RatingOrSkip),
  skipped: Type.Optional(Type.Boolean()),
  private: Type.Optional(Type.Boolean()),
  collection: Type.Optional(NullableInteger({ description: 'the collection the answer was given in' })),
  ...analyticsFields,
})
export type ChoiceVoteBody = Static<typeof ChoiceVoteBody>

export const ChoiceVotePatch = Type.Object({
  value: Type.Optional(RatingOrSkip),
  skipped: Type.Optional(Type.Boolean()),
  private: Type.Optional(Type.Boolean()),
  collection: Type.Optional(NullableInteger({ description: 'the collection the answer was given in' })),
})
export type ChoiceVotePatch = Static<typeof ChoiceVotePatch>

/** POST /api/question_tag_votes/: how well a tag fits a question. */
export const TagVoteBody = Type.Object({
  object_id: RelatedId('id of the question-tag (an element of a question’s tags)'),
  value: Rating,
  private: Type.Optional(Type.Boolean()),
})
export type TagVoteBody = Static<typeof TagVoteBody>

export const TagVotePatch = Type.Object({
  value: Type.Optional(Rating),
  private: Type.Optional(Type.Boolean()),
})
export type TagVotePatch = Static<typeof TagVotePatch>

const common = {
  id: Type.Integer(),
  url: Url,
  private: Type.Boolean(),
  user: Type.Integer({ description: 'id of the voter' }),
  created_at: Timestamp,
  modified_at: Timestamp,
}

export const QuestionVote = Type.Object({
  ...common,
  object_id: Type.Integer({ description: 'the question' }),
  value: Nullable(Type.Integer()),
  skipped: Type.Boolean(),
  importance: Nullable(Type.Integer()),
  collection: Nullable(Type.Integer()),
})
export type QuestionVote = Static<typeof QuestionVote>

export const ChoiceVote = Type.Object({
  ...common,
  object_id: Type.Integer({ description: 'the chosen choice' }),
  question: Type.Integer(),
  value: Nullable(Type.Integer()),
  skipped: Type.Boolean(),
  collection: Nullable(Type.Integer()),
})
export type ChoiceVote = Static<typeof ChoiceVote>

export const TagVote = Type.Object({
  ...common,
  object_id: Type.Integer({ description: 'the question-tag' }),
  question: Type.Integer(),
  tag: Type.Integer(),
  value: Type.Integer(),
})
export type TagVote = Static<typeof TagVote>

/** An id filter: any value a row id can take (as IdFilter), described. */
const Filter = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX, description }))

export const QuestionVoteListQuery = ListQuery({
  object_id: Filter('question id'),
  question: Filter('question id (same as object_id)'),
  user: Filter('voter id'),
})
export type QuestionVoteListQuery = Static<typeof QuestionVoteListQuery>

export const ChoiceVoteListQuery = ListQuery({
  object_id: Filter('choice id'),
  choice: Filter('choice id (same as object_id)'),
  question: Filter('question id'),
  user: Filter('voter id'),
})
export type ChoiceVoteListQuery = Static<typeof ChoiceVoteListQuery>

export const TagVoteListQuery = ListQuery({
  object_id: Filter('question-tag id'),
  question_tag: Filter('question-tag id (same as object_id)'),
  question: Filter('question id'),
  tag: Filter('tag id'),
  user: Filter('voter id'),
})
export type TagVoteListQuery = Static<typeof TagVoteListQuery>

export const HistoryListQuery = ListQuery({ question: Filter('question id') })
export type HistoryListQuery = Static<typeof HistoryListQuery>

/** One answer of the caller's history: the current one or one replaced (or withdrawn) since. */
const historyCore = {
  object_id: Type.Integer({ description: 'the question' }),
  choice: Nullable(Type.Integer({ description: 'the chosen choice of a multiple-choice question' })),
  value: Nullable(Type.Integer()),
  skipped: Type.Boolean(),
  private: Type.Boolean(),
  current: Type.Boolean({ description: 'true for the answer that counts now' }),
  vote: Nullable(Type.Integer({ description: 'id of the current vote (null for a replaced answer)' })),
  answered_at: Timestamp,
  replaced_at: Nullable(Timestamp),
}

export const HistorySimpleItem = Type.Object(historyCore)
export type HistorySimpleItem = Static<typeof HistorySimpleItem>

export const HistoryItem = Type.Object({
  ...historyCore,
  importance: Nullable(Type.Integer()),
  question: Type.Object({
    id: Type.Integer(),
    url: Url,
    question: Type.String(),
    slug: Type.String(),
    subtype: Type.String(),
  }),
  choice_text: Nullable(Type.String()),
})
export type HistoryItem = Static<typeof HistoryItem>
