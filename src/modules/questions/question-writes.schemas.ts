import { Type, type Static, type TSchema } from 'typebox'
import { ErrorBody, FieldErrorsBody, Id } from '../../http/schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'
import { writeErrors } from '../../http/route-schemas.ts'

/**
 * Null first: with Ajv's type coercion a null tried against a string or integer first would turn into
 * "" or 0; tried against null first it stays null (and "" becomes null, which reads as "none").
 */
export function NullOr<T extends TSchema>(schema: T) {
  return Type.Union([Type.Null(), schema])
}

export const TITLE_LENGTH = 500
export const MAX_CHOICES = 50
export const MAX_TAGS = 20
export const MAX_LINKS = 20

/** A date and time as DRF's DateTimeField takes it; a time without an offset is UTC. */
export const DateTimeInput = Type.String({ maxLength: 40, description: 'ISO 8601 date and time; UTC when no offset is given' })

export const LinkInput = Type.Object({
  link: Type.String({ minLength: 1, maxLength: 2000, description: 'an http or https URL' }),
  title: Type.Optional(NullOr(Type.String({ maxLength: 300 }))),
})
export type LinkInput = Static<typeof LinkInput>

const TagReference = Type.Object({ tag: Type.Object({ id: Id }) })
const CollectionReference = Type.Object({ parent: Type.Object({ id: Id }) })
const Subtype = Type.Union([Type.Literal('likert'), Type.Literal('mcq')])

/** What create and update share: everything an author may set on a question. */
const editable = {
  description: Type.Optional(NullOr(Type.String({ maxLength: 10000 }))),
  subtype: Type.Optional(Subtype),
  tags: Type.Optional(Type.Array(TagReference, { maxItems: MAX_TAGS })),
  topic: Type.Optional(NullOr(Id)),
  ogImage: Type.Optional(NullOr(Type.String({ maxLength: 2000 }))),
  geo: Type.Optional(NullOr(Id)),
  publish: Type.Optional(Type.Boolean()),
  start_at: Type.Optional(NullOr(DateTimeInput)),
  end_at: Type.Optional(NullOr(DateTimeInput)),
  perodic_repeat_interval: Type.Optional(NullOr(Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'seconds' }))),
}

/** POST /api/questions/ (spec 4.2). */
export const QuestionCreateBody = Type.Object({
  question: Type.String({ minLength: 1, maxLength: TITLE_LENGTH }),
  ...editable,
  choices: Type.Optional(Type.Array(Type.Object({ text: Type.String({ minLength: 1, maxLength: 500 }) }), { maxItems: MAX_CHOICES })),
  collections: Type.Optional(Type.Array(CollectionReference, { maxItems: 20 })),
  group: Type.Optional(NullOr(Id)),
  links: Type.Optional(Type.Array(LinkInput, { maxItems: MAX_LINKS })),
})
export type QuestionCreateBody = Static<typeof QuestionCreateBody>

/** A choice in an update: with the id of an existing choice to keep it, without one to add it. */
export const ChoiceInput = Type.Object({ id: Type.Optional(Id), text: Type.String({ minLength: 1, maxLength: 500 }) })
export type ChoiceInput = Static<typeof ChoiceInput>

const updatable = {
  ...editable,
  choices: Type.Optional(Type.Array(ChoiceInput, { maxItems: MAX_CHOICES })),
  group: Type.Optional(NullOr(Id)),
}

/** PATCH: only the fields sent change. Read-only fields of the full question that come back are ignored. */
export const QuestionPatchBody = Type.Object({
  question: Type.Optional(Type.String({ minLength: 1, maxLength: TITLE_LENGTH })),
  ...updatable,
})
/** PUT: as PATCH, but the title is required, as DRF requires every required field on a full update. */
export const QuestionPutBody = Type.Object({ question: Type.String({ minLength: 1, maxLength: TITLE_LENGTH }), ...updatable })
export type QuestionUpdateBody = Static<typeof QuestionPatchBody>

/** A question write's 400 may also be a plain `detail`. */
export const questionWriteErrors = { ...writeErrors, 400: Type.Union([FieldErrorsBody, ErrorBody]) }
