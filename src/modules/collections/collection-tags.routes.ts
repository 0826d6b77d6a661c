import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound, PermissionDenied, ValidationFailed, invalidPk, uniqueSet } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { collectionsRepository } from './collections.repository.ts'
import { COLLECTION_TAG_ORDERING, collectionTagsRepository, toCollectionTag, type CollectionTagRow } from './collection-tags.repository.ts'
import { CollectionTag, CollectionTagCreate, CollectionTagQuery } from './related.schemas.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { readBody } from '../../http/pk-body.ts'
import { tagsRepository } from '../tags/tags.repository.ts'
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

  app.get('/api/question_collection_tags/', {
    schema: { summary: 'Tags of collections', querystring: CollectionTagQuery, response: { 200: Page(CollectionTag), ...readErrors } },
    config: {
      access: 'anyone',
      resource: {
        name: 'Question Collection Tag List',
        description: "The tags of collections (filter collection=<id>). The collection's owner adds {collection, tag} and removes them.",
      },
    },
    handler: async (request) => {
      const filters = request.query
      const ordering = orderingTerms(filters.ordering, COLLECTION_TAG_ORDERING, ['created_at'], column('ct.id'))
      const result = await pageOfRows<CollectionTagRow>(
        request,
        repository().filtered(filters),
        (q) => q.select(repository().columns),
        ordering,
      )
      const urls = urlsFor(request)
      return listing(request, result, (rows) => rows.map((row) => toCollectionTag(row, urls)))
    },
  })

  app.post('/api/question_collection_tags/', {
    schema: { summary: 'Tag one of your collections', body: CollectionTagCreate, response: { 201: CollectionTag, ...writeErrors } },
    config: { access: 'signed-in' },
    preValidation: readBody({ collection: 'pk', tag: 'pk' }),
    handler: async (request, reply) => {
      const { collection: collectionId, tag: tagId } = request.body
      const caller = signedIn(request)
      const [collection, tag] = await Promise.all([collectionsRepository(app.db).find(collectionId), tagsRepository(app.db).exists(tagId)])
      const errors: Record<string, string[]> = {}
      if (!collection) errors.collection = [invalidPk(collectionId)]
      if (!tag) errors.tag = [invalidPk(tagId)]
      if (Object.keys(errors).length) throw ValidationFailed(errors)
      if (collection!.user_id !== caller.id && !caller.isStaff) throw PermissionDenied()
      const id = await refusingViolations(() => repository().insert(collectionId, tagId), {
        unique: uniqueSet('collection', 'tag'),
        missing: () => ({ collection: [invalidPk(collectionId)] }),
      })
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
