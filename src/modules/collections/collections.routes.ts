import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { collectionOwner } from './collections.http.ts'
import { collectionsRepository } from './collections.repository.ts'
import type { ListedCollection } from './listed-counts.ts'
import {
  Collection,
  CollectionCreate,
  CollectionFull,
  CollectionListQuery,
  CollectionPatch,
  type CollectionChanges,
} from './collections.schemas.ts'
import { collectionsFromRows, copyCollection, createCollection, deleteCollection, updateCollection } from './collections.service.ts'
import { collectionStatsRoutes } from './collection-stats.routes.ts'
import { collectionTagRoutes } from './collection-tags.routes.ts'
import { collectionUserRoutes } from './collection-users.routes.ts'
import { itemRoutes } from './items.routes.ts'
import { EmptyBody, IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { signedIn } from '../../http/permissions.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** question_collections (reduced user) and question_collections_full (full user, tags, copied_from), plus copy. */
export function collectionRoutes(app: App): void {
  const owner = collectionOwner(app)
  for (const form of ['reduced', 'full'] as const) {
    const base = form === 'full' ? '/api/question_collections_full' : '/api/question_collections'
    const Item = form === 'full' ? CollectionFull : Collection
    const render = (request: FastifyRequest, rows: ListedCollection[]) =>
      collectionsFromRows(viewContextOf(app, request), rows, form as 'full')
    /** The collection as the caller sees it: every answer about a collection shows the caller's counts. */
    const load = async (request: FastifyRequest, id: number) => {
      const row = await collectionsRepository(app.db).findFor(id, request.caller)
      if (!row) throw NotFound()
      return (await render(request, [row]))[0]
    }
    const what = form === 'full' ? ' with the full user, tags and copied_from' : ''

    listRoute(app, `${base}/`, {
      summary: `Question collections${what}`,
      querystring: CollectionListQuery,
      item: Item,
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: {
          name: form === 'full' ? 'Question Collection Full List' : 'Question Collection List',
          description:
            "Collections of questions people answer in order. Signed-in users create their own; answered is the caller's progress in percent.",
        },
      },
      rows: (request, list) => collectionsRepository(app.db).page(request.query, request.caller, list),
      items: (rows, request) => render(request, rows),
    })

    app.post(`${base}/`, {
      schema: { summary: 'Create a collection owned by the caller', body: CollectionCreate, response: { 201: Item, ...writeErrors } },
      config: { access: 'signed-in' },
      handler: async (request, reply) => {
        const row = await createCollection(app.db, signedIn(request), request.body)
        const created = await load(request, row.id)
        return reply.code(201).header('location', created.url).send(created)
      },
    })

    app.get(`${base}/:id/`, {
      schema: { summary: `One question collection${what}`, params: IdParams, response: { 200: Item, ...readErrors } },
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: {
          name: form === 'full' ? 'Question Collection Full Instance' : 'Question Collection Instance',
          description: 'One collection. Its owner edits and deletes it.',
        },
      },
      handler: async (request) => load(request, request.params.id),
    })

    for (const [method, body] of [
      ['PUT', CollectionCreate],
      ['PATCH', CollectionPatch],
    ] as const) {
      app.route({
        method,
        url: `${base}/:id/`,
        schema: {
          summary: method === 'PUT' ? 'Edit a collection (name required)' : 'Edit some fields of a collection',
          params: IdParams,
          body,
          response: { 200: Item, ...writeErrors },
        },
        config: { access: 'owner', owner },
        handler: async (request: FastifyRequest) => {
          const { id } = request.params as { id: number }
          await updateCollection(app.db, id, request.body as CollectionChanges)
          return load(request, id)
        },
      })
    }

    app.delete(`${base}/:id/`, {
      schema: { summary: 'Delete a collection with its items and tags', params: IdParams, response: { 204: NoContent, ...writeErrors } },
      config: { access: 'owner', owner },
      handler: async (request, reply) => {
        await deleteCollection(app.db, request.params.id)
        return reply.code(204).send(null)
      },
    })
  }

  app.post('/api/question_collections/:id/copy/', {
    schema: {
      summary: 'Copy a collection, its items and tags to the caller',
      params: IdParams,
      body: EmptyBody,
      response: { 201: Collection, ...writeErrors },
    },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Question Collection Copy',
        description: 'Makes a copy of this collection owned by you, with its items in order and its tags. The body may be empty.',
      },
    },
    handler: async (request, reply) => {
      const row = await copyCollection(app.db, signedIn(request), request.params.id)
      const found = await collectionsRepository(app.db).findFor(row.id, request.caller)
      if (!found) throw NotFound()
      const [copy] = await collectionsFromRows(viewContextOf(app, request), [found], 'reduced')
      return reply.code(201).header('location', copy.url).send(copy)
    },
  })

  itemRoutes(app)
  collectionUserRoutes(app)
  collectionTagRoutes(app)
  collectionStatsRoutes(app)
}
