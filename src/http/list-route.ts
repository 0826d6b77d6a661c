import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify'
import type { Static, TSchema } from 'typebox'
import type { ListRequest, RowsPage } from '../db/paging.ts'
import type { App } from './app-type.ts'
import { envelope, listRequestOf } from './pagination.ts'
import { Page, readErrors } from './schemas.ts'

/** A listing's request, typed by its query and path schemas. */
export type ListingRequest<Q extends TSchema, P extends TSchema> = FastifyRequest<{ Querystring: Static<Q>; Params: Static<P> }>

/**
 * A listing as a resource declares it: its schemas and access, where its rows come from (a repository's
 * `page(filters, viewer, list)`) and how rows become items (in a fixed number of statements for the page).
 * Paging, ordering text and the envelope of spec 2.1 are the same for every listing, so they live here.
 */
export interface ListingSpec<Q extends TSchema, P extends TSchema, Row, Item extends TSchema> {
  summary: string
  description?: string
  querystring: Q
  params?: P
  item: Item
  config: FastifyContextConfig
  rows: (request: ListingRequest<Q, P>, list: ListRequest) => Promise<RowsPage<Row>>
  items: (rows: Row[], request: ListingRequest<Q, P>) => Promise<Static<Item>[]> | Static<Item>[]
}

export function listRoute<Q extends TSchema, Row, Item extends TSchema, P extends TSchema = TSchema>(
  app: App,
  path: string,
  spec: ListingSpec<Q, P, Row, Item>,
): void {
  // Registered without the TypeBox provider's inference: Item is generic here, and the spec's own types carry it.
  ;(app as FastifyInstance).get(path, {
    schema: {
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      querystring: spec.querystring,
      ...(spec.params ? { params: spec.params } : {}),
      response: { 200: Page(spec.item), ...readErrors },
    },
    config: spec.config,
    handler: async (request) => {
      const listed = request as ListingRequest<Q, P>
      const result = await spec.rows(listed, listRequestOf(request))
      return envelope(request, result.page, result.count, await spec.items(result.rows, listed))
    },
  })
}
