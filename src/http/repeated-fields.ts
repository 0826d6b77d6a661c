import type { FastifyInstance } from 'fastify'
import { lightHook } from './hooks.ts'

type Schema = { type?: unknown; anyOf?: Schema[]; oneOf?: Schema[]; properties?: Record<string, Schema> }

function takesList(schema: Schema | undefined): boolean {
  if (!schema) return false
  if (schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'))) return true
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(takesList)
}

/**
 * A repeated key keeps its last value, as Django's QueryDict answers `get` (django-filter's filters and DRF's
 * non-list fields read it so); only a field whose schema takes a list keeps every value, as DRF's ListField
 * and many-related fields read `getlist`. With `declaredOnly`, keys the schema does not name are left alone.
 */
export function keepLastValues(fields: Record<string, unknown>, schema: Schema | undefined, declaredOnly = false): void {
  const properties = schema?.properties ?? {}
  for (const [name, value] of Object.entries(fields)) {
    if (!Array.isArray(value) || value.length === 0) continue
    const declared = Object.hasOwn(properties, name)
    if (declared ? takesList(properties[name]) : declaredOnly) continue
    fields[name] = value.at(-1)
  }
}

/**
 * Query parameters, read once for every route before anything else reads them (the application key, the
 * rate limits, the filters): `?page_size=100&page_size=20` is a page of 20, not a 400.
 */
export function registerQueryStrings(app: FastifyInstance): void {
  app.addHook(
    'onRequest',
    lightHook((request) => {
      const query = request.query
      if (query && typeof query === 'object')
        keepLastValues(query as Record<string, unknown>, request.routeOptions.schema?.querystring as Schema)
    }),
  )
}
