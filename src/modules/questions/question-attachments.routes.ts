import type { FastifyInstance } from 'fastify'
import type { Static, TSchema } from 'typebox'
import type { App } from '../../http/app-type.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound } from '../../core/errors.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { ListRequest, RowsPage } from '../../db/paging.ts'
import { listRoute, type ListingRequest } from '../../http/list-route.ts'
import type { OwnerLookup } from '../../http/permissions.ts'
import type { ResourceInfo } from '../../http/resources.ts'
import { readErrors } from '../../http/schemas.ts'
import { IdParams, NoContent } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'
import { questionWriteErrors } from './question-writes.schemas.ts'

/** What the shared routes ask of an attachment's repository. */
export interface AttachmentRows<Filters, Row> {
  page(filters: Filters, caller: Caller | null, list: ListRequest): Promise<RowsPage<Row>>
  find(id: number, caller: Caller | null): Promise<Row | undefined>
  remove(id: number): Promise<void>
}

/**
 * Something people attach to questions and vote on (a connection to a related question, a link to further reading).
 * Its listing, one instance and its removal by its owner read the same for every kind; creating and changing one
 * are each kind's own.
 */
export interface QuestionAttachment<Q extends TSchema, Row, Item extends TSchema> {
  /** The collection's path; one attachment is at `${path}:id/`. */
  path: string
  querystring: Q
  item: Item
  list: { summary: string; resource: ResourceInfo }
  instance: { summary: string; resource: ResourceInfo }
  removal: { summary: string; owner: OwnerLookup }
  /** Filtered by the listing's query as Fastify types it (Static<Q> once Q is known). */
  repository: () => AttachmentRows<ListingRequest<Q, TSchema>['query'], Row>
  toItem: (row: Row, urls: UrlBuilder) => Static<Item>
}

/** The listing, then one attachment. */
export function attachmentReads<Q extends TSchema, Row, Item extends TSchema>(
  app: App,
  attachment: QuestionAttachment<Q, Row, Item>,
): void {
  const { repository, toItem } = attachment
  listRoute(app, attachment.path, {
    summary: attachment.list.summary,
    querystring: attachment.querystring,
    item: attachment.item,
    config: { access: 'anyone', resource: attachment.list.resource },
    rows: (request, list) => repository().page(request.query, request.caller, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toItem(row, urls))
    },
  })

  // Registered without the TypeBox provider's inference, as listRoute is: Item is generic here.
  ;(app as FastifyInstance).get<{ Params: Static<typeof IdParams> }>(`${attachment.path}:id/`, {
    schema: { summary: attachment.instance.summary, params: IdParams, response: { 200: attachment.item, ...readErrors } },
    config: { access: 'anyone', resource: attachment.instance.resource },
    handler: async (request) => {
      const row = await repository().find(request.params.id, request.caller)
      if (!row) throw NotFound()
      return toItem(row, urlsFor(request))
    },
  })
}

/** Removal by the attachment's owner (its votes go with it). */
export function attachmentRemoval<Q extends TSchema, Row, Item extends TSchema>(
  app: App,
  attachment: QuestionAttachment<Q, Row, Item>,
): void {
  app.delete(`${attachment.path}:id/`, {
    schema: {
      summary: attachment.removal.summary,
      params: IdParams,
      response: { 204: NoContent, ...questionWriteErrors },
    },
    config: { access: 'owner', owner: attachment.removal.owner },
    handler: async (request, reply) => {
      await attachment.repository().remove(request.params.id)
      return reply.code(204).send(null)
    },
  })
}
