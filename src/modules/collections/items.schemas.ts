import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../http/schemas.ts'
import { Question } from '../questions/questions.schemas.ts'
import { Collection } from './collections.schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'

export const Order = Type.Integer({
  minimum: -INT4_MAX - 1,
  maximum: INT4_MAX,
  description: 'position in the collection; items list by order, then id',
})

export const BreakContent = Type.Object({ title: Type.String(), text: Type.String({ description: 'Markdown' }) })
export type BreakContent = Static<typeof BreakContent>

const fields = {
  id: Type.Integer(),
  url: Url,
  parent: Type.Integer({ description: 'collection id' }),
  order: Type.Integer(),
  type: Type.Union([Type.Literal('Q'), Type.Literal('B')], { description: 'Q: a question; B: a break (title and text between questions)' }),
  object_id: Nullable(Type.Integer({ description: 'the question id of a Q item; null for a break' })),
  content_object: Type.Union([Question, BreakContent], {
    description: 'Q: the question as /api/questions/<id>/ shows it; B: {title, text}',
  }),
  created_at: Timestamp,
  modified_at: Timestamp,
}

export const CollectionItem = Type.Object(fields)
export type CollectionItem = Static<typeof CollectionItem>

/** question_collection_items_full: the item with its collection. */
export const CollectionItemFull = Type.Object({ ...fields, parent_info: Collection })
export type CollectionItemFull = Static<typeof CollectionItemFull>

export const ItemListQuery = ListQuery({
  parent: Type.Optional(IdFilter),
  id: Type.Optional(IdFilter),
  type: Type.Optional(Type.Union([Type.Literal('Q'), Type.Literal('B')])),
  object_id: Type.Optional(IdFilter),
})
export type ItemListQuery = Static<typeof ItemListQuery>

const writable = {
  parent: Type.Integer({ description: 'collection id' }),
  type: Type.Optional(Type.String({ maxLength: 1, description: 'Q or B; left out: Q when a question is named, B otherwise' })),
  object_id: Type.Optional(Nullable(Type.Integer({ description: 'question id (Q); null or left out for a break' }))),
  question: Type.Optional(Nullable(Type.Integer({ description: 'legacy name of object_id' }))),
  content_object: Type.Optional(Type.Unknown({ description: 'B: {title, text}, or a list holding one such object; ignored for Q' })),
  order: Type.Optional(Order),
}

export const ItemCreate = Type.Object(writable)
export type ItemCreate = Static<typeof ItemCreate>

/** PATCH: the whole item as it was read may come back; parent, type and object_id must then be unchanged. */
export const ItemPatch = Type.Object({ ...writable, parent: Type.Optional(writable.parent) })
export type ItemPatch = Static<typeof ItemPatch>

export const UpdateOrderBody = Type.Object({
  items: Type.Array(Type.Object({ id: Type.Integer(), order: Order }), {
    maxItems: 5000,
    description: 'every item of the collection once, with its new order',
  }),
})
export type UpdateOrderBody = Static<typeof UpdateOrderBody>

export const ItemResults = Type.Object({ results: Type.Array(CollectionItem) })
