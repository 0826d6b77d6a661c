import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { readErrors } from '../../http/schemas.ts'
import { Tag } from '../tags/tags.schemas.ts'
import { followingTagsRepository, toFollowingTag } from './following-tags.repository.ts'
import { FollowingTag, FollowingTagCreate, FollowingTagListQuery } from './following-tags.schemas.ts'
import { createFollowingTag, deleteFollowingTag, followTag, tagAsFollowerSees, unfollowTag } from './following-tags.service.ts'
import { EmptyBody, IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

export function followingTagRoutes(app: App): void {
  const repository = () => followingTagsRepository(app.db)
  /** A link belongs to the follower. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : (await repository().find(id))?.user_id
  }

  listRoute(app, '/api/following_tags/', {
    summary: 'Who follows which tag',
    querystring: FollowingTagListQuery,
    item: FollowingTag,
    config: {
      access: 'anyone',
      resource: { name: 'Following Tag List', description: 'Links from a user to a tag (topic) they follow. Follow one with {tag}.' },
    },
    rows: (request, list) => repository().page(request.query, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toFollowingTag(row, urls))
    },
  })

  app.post('/api/following_tags/', {
    schema: { summary: 'Follow a tag', body: FollowingTagCreate, response: { 201: FollowingTag, ...writeErrors } },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const row = await createFollowingTag(app.db, signedIn(request), request.body.tag)
      return reply.code(201).send(toFollowingTag(row, urlsFor(request)))
    },
  })

  app.get('/api/following_tags/:id/', {
    schema: { summary: 'One tag follow link', params: IdParams, response: { 200: FollowingTag, ...readErrors } },
    config: {
      access: 'anyone',
      resource: { name: 'Following Tag Instance', description: 'One tag follow link; the follower deletes it to unfollow.' },
    },
    handler: async (request) => {
      const row = await repository().find(request.params.id)
      if (!row) throw NotFound()
      return toFollowingTag(row, urlsFor(request))
    },
  })

  app.delete('/api/following_tags/:id/', {
    schema: { summary: 'Unfollow the tag', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await deleteFollowingTag(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })

  /** The tag as /api/tags/:id/ shows it, after the change. */
  const tagAfter = (request: FastifyRequest, id: number) => tagAsFollowerSees(app.db, signedIn(request), id, urlsFor(request))

  app.post('/api/tags/:id/follow/', {
    schema: {
      summary: 'Follow the tag: 201 when you start following it, 200 when you already did',
      params: IdParams,
      body: EmptyBody,
      response: { 200: Tag, 201: Tag, ...writeErrors },
    },
    config: {
      access: 'signed-in',
      resource: { name: 'Tag Follow', description: 'Follow this tag. The body may be empty; the answer is the tag with following true.' },
    },
    handler: async (request, reply) => {
      const created = await followTag(app.db, signedIn(request), request.params.id)
      return reply.code(created ? 201 : 200).send(await tagAfter(request, request.params.id))
    },
  })

  app.post('/api/tags/:id/unfollow/', {
    schema: {
      summary: 'Stop following the tag (fine when you did not)',
      params: IdParams,
      body: EmptyBody,
      response: { 200: Tag, ...writeErrors },
    },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Tag Unfollow',
        description: 'Stop following this tag. The body may be empty; the answer is the tag with following false.',
      },
    },
    handler: async (request) => {
      await unfollowTag(app.db, signedIn(request), request.params.id)
      return tagAfter(request, request.params.id)
    },
  })
}
