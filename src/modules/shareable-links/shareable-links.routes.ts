import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { ListQuery, readErrors } from '../../http/schemas.ts'
import { urlsFor } from '../../http/urls.ts'
import { viewContextOf } from '../../http/view-context.ts'
import { toShareableLink } from './shareable-links.mapper.ts'
import { shareableLinksRepository } from './shareable-links.repository.ts'
import { LinkCreate, ShareableLink, SharedResults, TokenParams } from './shareable-links.schemas.ts'
import { createLink, openLink, sharedResults } from './shareable-links.service.ts'
import { sharedPage } from './shared-page.ts'
import { weightedPictures } from './shared-weighting.ts'
import { weightingOptions } from '../weighting/weighting.service.ts'

/** Signed, expiring links to a question's or a collection's results, and the public page each opens. */
export function shareableLinkRoutes(app: App): void {
  const repository = () => shareableLinksRepository(app.db)
  const creator = async (request: FastifyRequest) => {
    const id = idParam(request)
    const row = id === null ? undefined : await repository().find(id)
    return row ? row.user_id : undefined
  }
  const resource = {
    name: 'Create Shareable Link',
    description:
      'Links that open the results of a question or a collection to anyone holding them, until they expire or ' +
      'their creator revokes them. POST {question} or {collection}, with expires_in_days (1 to 365, 30 by default).',
  }

  listRoute(app, '/api/create_shareable_link/', {
    summary: 'Your shareable links',
    querystring: ListQuery({}),
    item: ShareableLink,
    config: { access: 'signed-in', resource },
    rows: (request, list) => repository().page(signedIn(request).id, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toShareableLink(row, urls))
    },
  })

  app.post('/api/create_shareable_link/', {
    schema: {
      summary: 'Share the results of a question or a collection',
      description:
        'Answers 201 with the link; `share_url` is the page it opens. A published question or a collection can be ' +
        'shared; a draft cannot (400), nor a question you may not see.',
      body: LinkCreate,
      response: { 201: ShareableLink, ...writeErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const row = await createLink(app.db, app.config, signedIn(request), request.body)
      return reply.code(201).send(toShareableLink(row, urlsFor(request)))
    },
  })

  app.get('/api/create_shareable_link/:id/', {
    schema: { summary: 'One of your shareable links', params: IdParams, response: { 200: ShareableLink, ...readErrors } },
    config: {
      access: 'owner',
      owner: creator,
      resource: { name: 'Shareable Link Instance', description: 'One shareable link. DELETE revokes it: it then answers 410.' },
    },
    handler: async (request) => {
      const row = await repository().find(request.params.id)
      if (!row) throw NotFound()
      return toShareableLink(row, urlsFor(request))
    },
  })

  app.delete('/api/create_shareable_link/:id/', {
    schema: { summary: 'Revoke a shareable link', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner: creator },
    handler: async (request, reply) => {
      await repository().revoke(request.params.id)
      return reply.code(204).send(null)
    },
  })

  app.get('/shared/:token/', {
    schema: {
      summary: 'The results a shareable link opens',
      description:
        'A page in a browser, JSON otherwise (or with format=json). What anyone may see now: published questions ' +
        'only, with the figures an anonymous caller sees. A token that is not ours, or a link to a question that ' +
        'is no longer published (or no longer there), answers 404; an expired or revoked link 410.',
      params: TokenParams,
      response: { 200: SharedResults, ...readErrors, 410: readErrors[404] },
    },
    config: { access: 'anyone', resource: { name: 'Shared Results', description: 'The results a shareable link opens.' } },
    handler: async (request, reply) => {
      const row = await openLink(app.db, app.config, request.params.token)
      // A link's page shows what an anonymous caller sees now, whoever opens or made it.
      const results = await sharedResults({ ...viewContextOf(app, request), caller: null }, row)
      const format = (request.query as { format?: string }).format
      if (request.renderHtml && format !== 'api') {
        const weighted = await weightedPictures(app.db, results.questions, weightingOptions(app.config))
        return reply.type('text/html; charset=utf-8').send(sharedPage(results, weighted) as never)
      }
      return results
    },
  })
}
