import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { readErrors } from '../../http/schemas.ts'
import { followingUsersRepository, toFollowingUser } from './following-users.repository.ts'
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

  listRoute(app, '/api/following_users/', {
    summary: 'Who follows whom',
    querystring: FollowingUserListQuery,
    item: FollowingUser,
    config: {
      access: 'anyone',
      resource: {
        name: 'Following User List',
        description: 'Links from a follower (user) to the user they follow (following). Follow someone with {following}.',
      },
    },
    rows: (request, list) => repository().page(request.query, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toFollowingUser(row, urls))
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
