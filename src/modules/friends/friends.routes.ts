import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { EmptyBody, IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { readErrors } from '../../http/schemas.ts'
import { toFriendships } from './friends.mapper.ts'
import { friendsRepository, type FriendshipRow } from './friends.repository.ts'
import { Friendship, FriendshipCreate, FriendshipListQuery } from './friends.schemas.ts'
import { acceptFriendship, declineFriendship, removeFriendship, requestFriend } from './friends.service.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** Friends: requests, acceptance, removal and lists. */
export function friendRoutes(app: App): void {
  const repository = () => friendsRepository(app.db)
  const context = (request: FastifyRequest) => viewContextOf(app, request)
  const one = async (request: FastifyRequest, row: FriendshipRow) => (await toFriendships(context(request), [row]))[0]

  /** A friendship belongs to both its people: either of them is its owner. */
  const eitherParty = async (request: FastifyRequest) => {
    const id = idParam(request)
    const row = id === null ? undefined : await repository().find(id)
    if (!row) return undefined
    const callerId = request.caller?.id
    return callerId === row.user_id || callerId === row.friend_id ? callerId : row.user_id
  }
  /** Only the person asked answers a request. */
  const personAsked = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : (await repository().find(id))?.friend_id
  }

  listRoute(app, '/api/friends/', {
    summary: 'Your friends and friend requests, or the friends of someone else',
    description:
      'Without `user`: your friendships, accepted and pending, in both directions. With `user=<id>`: that ' +
      "person's accepted friendships (pending requests are private to the two people). Filter with " +
      '`status=pending|accepted` and `direction=incoming|outgoing` (relative to `user`, you by default).',
    querystring: FriendshipListQuery,
    item: Friendship,
    config: {
      access: 'signed-in',
      resource: {
        name: 'Friend List',
        description: 'Friendships: `user` asked `friend`; pending until the friend accepts. Ask someone with {friend}.',
      },
    },
    rows: (request, list) => repository().page(request.query, signedIn(request).id, list),
    items: (rows, request) => toFriendships(context(request), rows),
  })

  app.post('/api/friends/', {
    schema: {
      summary: 'Ask someone to be your friend',
      description:
        'Answers 201 with the pending request. When they have asked you already, this accepts their request ' +
        'instead and answers 200 with the accepted friendship. Yourself, someone asked already, a friend already, ' +
        'or a deleted or deactivated account: 400 with the reason.',
      body: FriendshipCreate,
      response: { 200: Friendship, 201: Friendship, ...writeErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const { row, created } = await requestFriend(app.db, signedIn(request), request.body.friend)
      return reply.code(created ? 201 : 200).send(await one(request, row))
    },
  })

  app.get('/api/friends/:id/', {
    schema: {
      summary: 'One friendship or friend request',
      description: 'Seen by its two people and staff.',
      params: IdParams,
      response: { 200: Friendship, ...readErrors },
    },
    config: {
      access: 'owner',
      owner: eitherParty,
      resource: {
        name: 'Friend Instance',
        description: 'One friendship or request. Either person deletes it (remove, cancel or decline); the person asked accepts it.',
      },
    },
    handler: async (request) => {
      const row = await repository().find(request.params.id)
      if (!row) throw NotFound()
      return one(request, row)
    },
  })

  app.delete('/api/friends/:id/', {
    schema: {
      summary: 'Remove a friend, cancel your request or decline one',
      description: 'Either person may delete. Removing an accepted friendship lowers both count_friends.',
      params: IdParams,
      response: { 204: NoContent, ...writeErrors },
    },
    config: { access: 'owner', owner: eitherParty },
    handler: async (request, reply) => {
      await removeFriendship(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })

  app.post('/api/friends/:id/accept/', {
    schema: {
      summary: 'Accept a friend request',
      description:
        'By the person asked. Answers 200 with the accepted friendship (also when it was accepted already); ' +
        "both people's count_friends go up once.",
      params: IdParams,
      body: EmptyBody,
      response: { 200: Friendship, ...writeErrors },
    },
    config: {
      access: 'owner',
      owner: personAsked,
      resource: { name: 'Friend Accept', description: 'Accept this request. The body may be empty.' },
    },
    handler: async (request) => one(request, await acceptFriendship(app.db, request.params.id)),
  })

  app.post('/api/friends/:id/decline/', {
    schema: {
      summary: 'Decline a friend request',
      description: 'By the person asked: the request is deleted (204). An accepted friendship is removed with DELETE instead (400 here).',
      params: IdParams,
      body: EmptyBody,
      response: { 204: NoContent, ...writeErrors },
    },
    config: {
      access: 'owner',
      owner: personAsked,
      resource: { name: 'Friend Decline', description: 'Decline this request. The body may be empty.' },
    },
    handler: async (request, reply) => {
      await declineFriendship(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })
}
