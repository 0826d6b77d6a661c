import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { FOLLOWING_USER_ORDERING, followingUsersRepository, toFollowingUser, type FollowingUserRow } from './following-users.repository.ts'
import { FollowingUser, FollowingUserCreate, FollowingUserListQuery } from './following-users.schemas.ts'
import { followUser, unfollowUser } from './following-users.service.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

export function followingUserRoutes(app: App): void {
  const repository = () => followingUsersRepository(app.db)
  /** A link belongs to the follower. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : (await repository().find(id))?.user_id
  }

  app.get('/api/following_users/', {
    schema: { summary: 'Who follows whom', querystring: FollowingUserListQuery, response: { 200: Page(FollowingUser), ...readErrors } },
    config: {
      access: 'anyone',
      resource: {
        name: 'Following User List',
        description: 'Links from a follower (user) to the user they follow (following). Follow someone with {following}.',
      },
    },
    handler: async (request) => {
      const filters = request.query
      const urls = urlsFor(request)
      const ordering = orderingTerms(filters.ordering, FOLLOWING_USER_ORDERING, ['-created_at'], column('following_users.id'))
      const result = await pageOfRows<FollowingUserRow>(
        request,
        repository().filtered(filters),
        (q) => q.selectAll('following_users'),
        ordering,
      )
      return listing(request, result, (rows) => rows.map((row) => toFollowingUser(row, urls)))
    },
  })

  app.post('/api/following_users/', {
    schema: { summary: 'Follow a user', body: FollowingUserCreate, response: { 201: FollowingUser, ...writeErrors } },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const row = await followUser(app.db, signedIn(request), request.body.following)
      return reply.code(201).send(toFollowingUser(row, urlsFor(request)))
    },
  })

  app.get('/api/following_users/:id/', {
    schema: { summary: 'One follow link', params: IdParams, response: { 200: FollowingUser, ...readErrors } },
    config: {
      access: 'anyone',
      resource: { name: 'Following User Instance', description: 'One follow link; the follower deletes it to unfollow.' },
    },
    handler: async (request) => {
      const row = await repository().find(request.params.id)
      if (!row) throw NotFound()
      return toFollowingUser(row, urlsFor(request))
    },
  })

  app.delete('/api/following_users/:id/', {
    schema: { summary: 'Unfollow', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await unfollowUser(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })
}
