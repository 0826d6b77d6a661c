import { Type, type TSchema, type TProperties } from 'typebox'
import { ID_LIST_FORMAT, INT4_MAX } from '../core/integers.ts'

/** Shared shapes: every resource builds its schemas from these. */
export const Id = Type.Integer({ minimum: 1, maximum: INT4_MAX })
/**
 * The id of a related object in a body, which the route looks up: any whole number is read (not only int4's),
 * so one no row can have answers DRF's `Invalid pk "N" - object does not exist.` rather than a range message.
 */
export const RelatedId = (description: string) =>
  Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description })
/** An id given as a filter: any value a row id can take, so it never overflows the column. */
export const IdFilter = Type.Integer({ minimum: 0, maximum: INT4_MAX })
/**
 * A comma-separated id list given as a filter (`id__in=1,2,3`): each item a whole number (else 400), ids past
 * the int4 range dropped; read with `parseIdList`. Sent empty, the filter is not applied.
 */
export const IdList = (description = 'comma-separated ids') => Type.String({ format: ID_LIST_FORMAT, maxLength: 10000, description })
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with fractional seconds and Z' })
export const Url = Type.String({ format: 'uri' })

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()])
}

export const ErrorBody = Type.Object({ detail: Type.String() }, { description: 'DRF error: 401, 403, 404, 405, 415, 429, 500' })
/** A 400 is field messages, or a `detail` for a body that could not be read at all (malformed JSON). */
export const FieldErrorsBody = Type.Record(Type.String(), Type.Union([Type.Array(Type.String()), Type.String()]), {
  description: 'DRF validation error: field name (or non_field_errors) to messages; or detail for an unreadable body',
})

/** The pagination envelope of spec 2.1. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    count: Type.Integer(),
    next: Nullable(Url),
    previous: Nullable(Url),
    next_id: Nullable(Type.Integer()),
    previous_id: Nullable(Type.Integer()),
    results: Type.Array(item),
  })
}

/** Responses every read route may give besides its success body. */
export const readErrors = { 400: FieldErrorsBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody }

export const GeoPoint = Type.Object({
  type: Type.Literal('Point'),
  coordinates: Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[longitude, latitude]' }),
})

/** Query parameters every listing takes (page, page_size, ordering) plus the resource's own filters. */
export function ListQuery<T extends TProperties>(filters: T) {
  return Type.Object({
    page: Type.Optional(Type.String({ description: 'page number from 1, or "last"' })),
    page_size: Type.Optional(Type.String({ description: 'items per page, 10 by default, at most 100' })),
    ordering: Type.Optional(Type.String({ description: 'comma-separated fields, a leading - reverses' })),
    ...filters,
  })
}
