import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { readErrors } from '../../http/schemas.ts'
import { tagCollection } from './collection-tags.service.ts'
import { collectionTagsRepository, toCollectionTag } from './collection-tags.repository.ts'
import { CollectionTag, CollectionTagCreate, CollectionTagQuery } from './related.schemas.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { readBody } from '../../http/pk-body.ts'
import { urlsFor } from '../../http/urls.ts'

export function collectionTagRoutes(app: App): void {
  const repository = () => collectionTagsRepository(app.db)
  /** A collection's tag belongs to the collection's owner. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : repository().owner(id)
  }
  const load = async (request: FastifyRequest, id: number) => {
    const row = await repository().find(id)
    if (!row) throw NotFound()
    return toCollectionTag(row, urlsFor(request))
  }

  listRoute(app, '/api/question_collection_tags/', {
    summary: 'Tags of collections',
    querystring: CollectionTagQuery,
    item: CollectionTag,
    config: {
      access: 'anyone',
      resource: {
        name: 'Question Collection Tag List',
        description: "The tags of collections (filter collection=<id>). The collection's owner adds {collection, tag} and removes them.",
      },
    },
    rows: (request, list) => repository().page(request.query, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toCollectionTag(row, urls))
    },
  })

  app.post('/api/question_collection_tags/', {
    schema: { summary: 'Tag one of your collections', body: CollectionTagCreate, response: { 201: CollectionTag, ...writeErrors } },
    config: { access: 'signed-in' },
    preValidation: readBody({ collection: 'pk', tag: 'pk' }),
    handler: async (request, reply) => {
      const id = await tagCollection(app.db, signedIn(request), request.body)
      const created = await load(request, id)
      return reply.code(201).header('location', created.url).send(created)
    },
  })

  app.get('/api/question_collection_tags/:id/', {
    schema: { summary: 'One tag of a collection', params: IdParams, response: { 200: CollectionTag, ...readErrors } },
    config: {
      access: 'anyone',
      resource: { name: 'Question Collection Tag Instance', description: 'One tag of a collection; its owner removes it.' },
    },
    handler: async (request) => load(request, request.params.id),
  })

  app.delete('/api/question_collection_tags/:id/', {
    schema: { summary: 'Remove a tag from a collection', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await repository().remove(request.params.id)
      return reply.code(204).send(null)
    },
  })
}
