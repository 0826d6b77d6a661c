import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { ApiError, fieldError, NotFound, ValidationFailed, invalidPk } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { ListQuery, Page, readErrors } from '../../http/schemas.ts'
import { iso, isoOrNull } from '../../core/time.ts'
import { signingKey } from '../accounts/secrets.ts'
import { collectionsRepository } from '../collections/collections.repository.ts'
import { collectionsFromRows } from '../collections/collections.service.ts'
import { visibleQuestion } from '../../access/question-access.ts'
import { QUESTION_COLUMNS, questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import { questionsFromRows } from '../questions/questions.service.ts'
import { verifiedLinkId } from './link-tokens.ts'
import { shareableLinksRepository, type LinkRow } from './shareable-links.repository.ts'
import { DEFAULT_LINK_DAYS, LinkCreate, ShareableLink, SharedResults, TokenParams } from './shareable-links.schemas.ts'
import { sharedPage } from './shared-page.ts'
import { urlsFor } from '../../http/urls.ts'
import { viewContextOf } from '../../http/view-context.ts'

/**
 * The request as nobody's: a link's page shows what an anonymous caller sees now, whoever opens or made it.
 * Whatever a view context derives from the caller, it derives for nobody.
 */
const asAnonymous = (request: FastifyRequest): FastifyRequest => Object.create(request, { caller: { value: null } }) as FastifyRequest
const Gone = (text: string) => new ApiError(410, { detail: text })

/** Signed, expiring links to a question's or a collection's results, and the public page each opens. */
export function shareableLinkRoutes(app: App): void {
  const repository = () => shareableLinksRepository(app.db)
  const toLink = (request: FastifyRequest, row: LinkRow) => {
    const urls = urlsFor(request)
    return {
      id: row.id,
      url: urls.detail('create_shareable_link', row.id),
      token: row.code,
      share_url: urls.path(`/shared/${row.code}/`),
      question: row.question_id === null ? null : urls.detail('questions', row.question_id),
      collection: row.collection_id === null ? null : urls.detail('question_collections', row.collection_id),
      expires_at: iso(row.expires_at),
      revoked: row.revoked_at !== null,
      revoked_at: isoOrNull(row.revoked_at),
      created_at: iso(row.created_at),
    }
  }
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

  app.get('/api/create_shareable_link/', {
    schema: { summary: 'Your shareable links', querystring: ListQuery({}), response: { 200: Page(ShareableLink), ...readErrors } },
    config: { access: 'signed-in', resource },
    handler: async (request) => {
      const ordering = orderingTerms(request.query.ordering, { created_at: column('created_at') }, ['-created_at'], column('id'))
      const result = await pageOfRows<LinkRow>(request, repository().ofUser(signedIn(request).id), (q) => q.selectAll(), ordering)
      return listing(request, result, (rows) => rows.map((row) => toLink(request, row)))
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
      const caller = signedIn(request)
      const { question, collection, expires_in_days: days = DEFAULT_LINK_DAYS } = request.body
      if ((question === undefined) === (collection === undefined))
        throw ValidationFailed({ non_field_errors: ['Give either a question or a collection.'] })
      if (question !== undefined) {
        const found = await visibleQuestion(app.db, caller, question)
        if (!found) throw fieldError('question', invalidPk(question))
        // A draft is for its author (and staff) only: a link would open it to anyone holding it.
        if (!found.publish) throw fieldError('question', 'Only published questions can be shared.')
      }
      if (collection !== undefined && !(await collectionsRepository(app.db).find(collection)))
        throw fieldError('collection', invalidPk(collection))
      const row = await repository().create(await signingKey(app.db, app.config), {
        user_id: caller.id,
        question_id: question ?? null,
        collection_id: collection ?? null,
        target_url: question !== undefined ? `/api/questions/${question}/` : `/api/question_collections/${collection}/`,
        days,
      })
      return reply.code(201).send(toLink(request, row))
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
      return toLink(request, row)
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
      const id = verifiedLinkId(await signingKey(app.db, app.config), request.params.token)
      const row = id === null ? undefined : await repository().find(id)
      if (!row || row.code !== request.params.token) throw NotFound()
      if (row.revoked_at !== null) throw Gone('This link was revoked by the person who shared it.')
      if (new Date(row.expires_at).getTime() <= Date.now()) throw Gone('This link has expired.')
      const results = await sharedResults(request, row)
      const format = (request.query as { format?: string }).format
      if (request.renderHtml && format !== 'api') return reply.type('text/html; charset=utf-8').send(sharedPage(results) as never)
      return results
    },
  })

  async function sharedResults(request: FastifyRequest, row: LinkRow) {
    const nobody = asAnonymous(request)
    let questionIds: number[]
    let collection = null
    if (row.collection_id !== null) {
      const found = await collectionsRepository(app.db).find(row.collection_id)
      if (!found) throw NotFound()
      ;[collection] = await collectionsFromRows(viewContextOf(app, nobody), [found], 'full')
      const items = await app.db
        .selectFrom('question_collection_items')
        .select('question_id')
        .where('parent_id', '=', row.collection_id)
        .where('type', '=', 'Q')
        .orderBy('order')
        .orderBy('id')
        .execute()
      questionIds = items.map((item) => item.question_id!)
    } else questionIds = [row.question_id!]
    // The rows and the builder of the anonymous question detail: drafts are not there, figures as anyone sees them.
    const rows = questionIds.length
      ? ((await questionsRepository(app.db)
          .filtered({ id__in: questionIds.join(',') }, null)
          .select(QUESTION_COLUMNS)
          .execute()) as QuestionRow[])
      : []
    const byId = new Map((await questionsFromRows(viewContextOf(app, nobody), rows)).map((question) => [question.id, question]))
    const questions = questionIds.flatMap((id) => byId.get(id) ?? [])
    // A question unpublished (or deleted) since: the link opens nothing.
    if (row.question_id !== null && questions.length === 0) throw NotFound()
    return {
      kind: row.collection_id !== null ? ('collection' as const) : ('question' as const),
      expires_at: iso(row.expires_at),
      question: row.question_id !== null ? questions[0] : null,
      collection,
      questions,
    }
  }
}
