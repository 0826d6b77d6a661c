import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { fieldError, NotFound, invalidPk } from '../../../core/errors.ts'
import { listRoute } from '../../../http/list-route.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { readErrors } from '../../../http/schemas.ts'
import { iso } from '../../../core/time.ts'
import { UrlBuilder } from '../../../core/urls.ts'
import { questionWriteErrors } from '../question-writes.schemas.ts'
import { CONNECTION_VOTES, directVotesRepository, LINK_VOTES, type DirectVoteKind, type DirectVoteRow } from './direct-votes.repository.ts'
import { DirectVote, DirectVoteBody, DirectVoteListQuery } from './direct-votes.schemas.ts'
import { IdParams, NoContent } from '../../../http/route-schemas.ts'
import { urlsFor } from '../../../http/urls.ts'

function toDirectVote(row: DirectVoteRow, kind: DirectVoteKind, urls: UrlBuilder): DirectVote {
  return {
    id: row.id,
    url: urls.detail(kind.resource, row.id),
    object_id: row.object_id,
    value: row.value,
    user: row.user_id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}

/** question_question_connection_votes and question_link_votes: how related two questions are, how useful a link is. */
export function directVoteRoutes(app: App): void {
  directVoteResource(app, CONNECTION_VOTES, 'Question Question Connection Vote', 'connection between questions')
  directVoteResource(app, LINK_VOTES, 'Question Link Vote', 'link of a question')
}

function directVoteResource(app: App, kind: DirectVoteKind, name: string, what: string): void {
  const base = `/api/${kind.resource}/`
  const repository = () => directVotesRepository(app.db, kind)
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : (await repository().find(id, request.caller))?.user_id
  }

  listRoute(app, base, {
    summary: `Ratings (1 to 5) of each ${what}`,
    querystring: DirectVoteListQuery,
    item: DirectVote,
    config: {
      access: 'anyone',
      resource: { name: `${name} List`, description: `Ratings from 1 to 5 of each ${what}; one per person, a new one replaces it.` },
    },
    rows: (request, list) => repository().page(request.query, request.caller, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toDirectVote(row, kind, urls))
    },
  })

  app.post(base, {
    schema: {
      summary: `Rate a ${what} from 1 to 5: 201 for a first rating, 200 when it replaces yours`,
      body: DirectVoteBody,
      response: { 200: DirectVote, 201: DirectVote, ...questionWriteErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const { object_id: targetId, value } = request.body
      const invalid = () => fieldError('object_id', invalidPk(targetId))
      if (!(await repository().targetVisible(targetId, request.caller))) throw invalid()
      const cast = await repository().cast(signedIn(request).id, targetId, value)
      if (!cast) throw invalid()
      return reply.code(cast.created ? 201 : 200).send(toDirectVote(cast.row, kind, urlsFor(request)))
    },
  })

  app.get(`${base}:id/`, {
    schema: { summary: `One rating of a ${what}`, params: IdParams, response: { 200: DirectVote, ...readErrors } },
    config: { access: 'anyone', resource: { name: `${name} Instance`, description: `One rating of a ${what}.` } },
    handler: async (request) => {
      const row = await repository().find(request.params.id, request.caller)
      if (!row) throw NotFound()
      return toDirectVote(row, kind, urlsFor(request))
    },
  })

  app.delete(`${base}:id/`, {
    schema: { summary: 'Withdraw your rating', params: IdParams, response: { 204: NoContent, ...questionWriteErrors } },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      if (!(await repository().withdraw(request.params.id))) throw NotFound()
      return reply.code(204).send(null)
    },
  })
}
