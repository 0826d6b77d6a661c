import { Type, type Static } from 'typebox'
import { Id, IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../../http/schemas.ts'
import { statisticsProperties } from '../../../engines/statistics/statistics-fields.ts'
import { NullOr } from '../question-writes.schemas.ts'

/** A link of a question (further reading) with the direct statistics of its votes. */
export const QuestionLinkItem = Type.Object({
  id: Type.Integer(),
  url: Url,
  question: Type.Integer(),
  user: Nullable(Type.Integer({ description: 'who added the link' })),
  link: Type.String(),
  title: Type.String(),
  ...statisticsProperties('direct'),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type QuestionLinkItem = Static<typeof QuestionLinkItem>

export const LinkListQuery = ListQuery({ question: Type.Optional(IdFilter), id: Type.Optional(IdFilter) })
export type LinkListQuery = Static<typeof LinkListQuery>

const link = Type.String({ minLength: 1, maxLength: 2000, description: 'an http or https URL' })
const title = NullOr(Type.String({ maxLength: 300 }))

export const LinkCreateBody = Type.Object({ question: Id, link, title: Type.Optional(title) })
export type LinkCreateBody = Static<typeof LinkCreateBody>
export const LinkUpdateBody = Type.Object({ link: Type.Optional(link), title: Type.Optional(title) })
export type LinkUpdateBody = Static<typeof LinkUpdateBody>
export const LinkPutBody = Type.Object({ link, title: Type.Optional(title) })
