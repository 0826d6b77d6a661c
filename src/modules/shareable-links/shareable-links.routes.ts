import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import type { Caller } from '../../http/authentication.ts'
import { ApiError, fieldError, NotFound, ValidationFailed } from '../../http/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../http/ordering.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { iso, isoOrNull, ListQuery, Page, readErrors } from '../../http/schemas.ts'
import { UrlBuilder } from '../../http/urls.ts'
import { signingKey } from '../accounts/secrets.ts'
import { collectionsRepository } from '../collections/collections.repository.ts'
import { collectionsFromRows } from '../collections/collections.service.ts'
import { visibleQuestion } from '../questions/question-access.ts'
import { QUESTION_COLUMNS, questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import { questionsFromRows } from '../questions/questions.service.ts'
import { userViewContext } from '../users/users.service.ts'
import { verifiedLinkId } from './link-tokens.ts'
import { shareableLinksRepository, type LinkRow } from './shareable-links.repository.ts'
import { DEFAULT_LINK_DAYS, LinkCreate, ShareableLink, SharedResults, TokenParams } from './shareable-links.schemas.ts'
import { sharedPage } from './shared-page.ts'

/** Whoever holds a valid link reads its results as staff would see the question, with no answers of their own. */
const LINK_READER: Caller = { id: 0, isStaff: true, tokenId: 0 }
const Gone = (text: string) => new ApiError(410, { detail: text })

/** Signed, expiring links to a question's or a collection's results, and the public page each opens. */
export function shareableLinkRoutes(app: App): void {
  const repository = () => shareableLinksRepository(app.db)
  const toLink = (request: FastifyRequest, row: LinkRow) => {
    const urls = UrlBuilder.for(request)
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
      description: 'Answers 201 with the link; `share_url` is the page it opens. Only what you may see can be shared.',
      body: LinkCreate,
      response: { 201: ShareableLink, ...writeErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const caller = signedIn(request)
      const { question, collection, expires_in_days: days = DEFAULT_LINK_DAYS } = request.body
      if ((question === undefined) === (collection === undefined))
        throw ValidationFailed({ non_field_errors: ['Give either a question or a collection.'] })
      if (question !== undefined && !(await visibleQuestion(app.db, caller, question)))
        throw fieldError('question', `Invalid pk "${question}" - object does not exist.`)
      if (collection !== undefined && !(await collectionsRepository(app.db).find(collection)))
        throw fieldError('collection', `Invalid pk "${collection}" - object does not exist.`)
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
        'A page in a browser, JSON otherwise (or with format=json). A token that is not ours answers 404; an expired ' +
        'or revoked link 410. Figures only: nobody’s answers.',
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
    const context = { ...userViewContext(app, request), callerId: null }
    let questionIds: number[]
    let collection = null
    if (row.collection_id !== null) {
      const found = await collectionsRepository(app.db).find(row.collection_id)
      if (!found) throw NotFound()
      ;[collection] = await collectionsFromRows({ ...context, caller: null }, [found], 'full')
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
    const rows = questionIds.length
      ? ((await questionsRepository(app.db)
          .filtered({ id__in: questionIds.join(',') }, LINK_READER)
          .select(QUESTION_COLUMNS)
          .execute()) as QuestionRow[])
      : []
    const byId = new Map((await questionsFromRows(context, rows)).map((question) => [question.id, question]))
    const questions = questionIds.flatMap((id) => byId.get(id) ?? [])
    return {
      kind: row.collection_id !== null ? ('collection' as const) : ('question' as const),
      expires_at: iso(row.expires_at),
      question: row.question_id !== null ? (questions[0] ?? null) : null,
      collection,
      questions,
    }
  }
}
