import { readsBodyTypes } from '../../http/body.ts'
import { INT4_MAX, readInteger } from '../../core/integers.ts'
import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { ValidationFailed } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { readErrors } from '../../http/schemas.ts'
import { ownOrStaff } from './delegation-rules.ts'
import { tagDelegationsRepository, toTagDelegation, type TagDelegationRow } from './tag-delegations.repository.ts'
import {
  TagDelegation,
  TagDelegationCreate,
  TagDelegationListQuery,
  TagDelegationReorder,
  TagDelegationResults,
  TagDelegationsToMe,
  TagDelegationUpdate,
} from './tag-delegations.schemas.ts'
import { createTagDelegation, reorderTagDelegations, revokeTagDelegation, updateTagDelegation } from './tag-delegations.service.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { readBody } from '../../http/pk-body.ts'
import { reducedUsers } from '../users/users.service.ts'
import { urlsFor } from '../../http/urls.ts'
import { viewContextOf } from '../../http/view-context.ts'

/**
 * `order` as DRF's ListField of integers reads it: a JSON list, or a form field given once or repeated.
 * Anything that is not a list of whole numbers is refused on `order`, before the schema sees it.
 */
async function readOrder(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('order' in body)) return
  const form = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
  let value = body.order
  if (form && typeof value === 'string') value = value === '' ? [] : [value]
  if (!Array.isArray(value)) {
    const type =
      value === null
        ? 'null'
        : typeof value === 'object'
          ? 'dict'
          : typeof value === 'string'
            ? 'str'
            : typeof value === 'boolean'
              ? 'bool'
              : 'int'
    throw ValidationFailed({ order: [value === null ? 'This field may not be null.' : `Expected a list of items but got type "${type}".`] })
  }
  const ids: number[] = []
  for (const item of value) {
    const reading = readInteger(item, 'body', { minimum: 0, maximum: INT4_MAX })
    if (!reading.ok) throw ValidationFailed({ order: ['A valid integer is required.'] })
    ids.push(reading.value)
  }
  body.order = ids
}

export function tagDelegationRoutes(app: App): void {
  const repository = () => tagDelegationsRepository(app.db)
  /** A delegation belongs to the user who delegates. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : (await repository().find(id))?.user_id
  }

  /** Items for rows: their tags and trustees in one statement each (the trustees' in a fixed few). */
  const items = async (request: FastifyRequest, rows: TagDelegationRow[]) => {
    const urls = urlsFor(request)
    const [tags, users] = await Promise.all([
      repository().tagInfos(rows.map((row) => row.tag_id)),
      reducedUsers(
        viewContextOf(app, request),
        rows.map((row) => row.trustee_id),
      ),
    ])
    return rows.map((row) => toTagDelegation(row, tags, users, urls))
  }
  const item = async (request: FastifyRequest, row: TagDelegationRow) => (await items(request, [row]))[0]

  listRoute(app, '/api/tag_delegations/', {
    summary: 'Your tag delegations',
    querystring: TagDelegationListQuery,
    item: TagDelegation,
    config: {
      access: 'signed-in',
      resource: {
        name: 'Tag Delegation List',
        description:
          'Your delegations by tag: who answers for you on questions of that tag (a trustee), or a block. Active ones; history=1 adds revoked ones. Delegate with {tag, trustee, priority}.',
      },
    },
    rows: (request, list) => repository().page(signedIn(request).id, request.query, list),
    items: (rows, request) => items(request, rows),
  })

  app.post('/api/tag_delegations/', {
    schema: {
      summary: 'Delegate on a tag (replaces your active delegation on it)',
      body: TagDelegationCreate,
      response: { 201: TagDelegation, ...writeErrors },
    },
    config: { access: 'signed-in' },
    preValidation: readBody({ tag: 'pk', trustee: 'nullable-pk', priority: 'integer' }),
    handler: async (request, reply) => {
      const created = await item(request, await createTagDelegation(app.db, signedIn(request), request.body))
      return reply.code(201).header('location', created.url).send(created)
    },
  })

  app.post('/api/tag_delegations/reorder/', {
    schema: {
      summary: 'Put your active tag delegations in a new order',
      body: TagDelegationReorder,
      response: { 200: TagDelegationResults, ...writeErrors },
    },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Tag Delegation Reorder',
        description: 'Send {order: [ids]} listing each of your active tag delegations once; priorities become 0, 1, 2... in that order.',
      },
    },
    preValidation: readsBodyTypes(readOrder),
    handler: async (request) => ({
      results: await items(request, await reorderTagDelegations(app.db, signedIn(request), request.body.order)),
    }),
  })

  app.get('/api/tag_delegations/to_me/', {
    schema: { summary: 'How many people delegate to you, per tag', response: { 200: TagDelegationsToMe, ...readErrors } },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Tag Delegation To Me',
        description: 'Per tag, how many active delegations name you as trustee. Counts only, never who.',
      },
    },
    handler: async (request) => {
      const counts = await repository().countsFor(signedIn(request).id)
      return { results: counts.map((row) => ({ tag: row.tag_id, tag_info: { id: row.tag_id, text: row.text }, count: row.count })) }
    },
  })

  app.get('/api/tag_delegations/:id/', {
    schema: { summary: 'One of your tag delegations', params: IdParams, response: { 200: TagDelegation, ...readErrors } },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Tag Delegation Instance',
        description: 'One of your tag delegations. Change its trustee or priority, or revoke it.',
      },
    },
    handler: async (request) => item(request, ownOrStaff(signedIn(request), await repository().find(request.params.id))),
  })

  app.patch('/api/tag_delegations/:id/', {
    schema: {
      summary: 'Change the trustee (a new delegation replaces this one) or the priority',
      params: IdParams,
      body: TagDelegationUpdate,
      response: { 200: TagDelegation, ...writeErrors },
    },
    config: { access: 'owner', owner },
    preValidation: readBody({ trustee: 'nullable-pk', priority: 'integer' }),
    handler: async (request) => item(request, await updateTagDelegation(app.db, request.params.id, request.body)),
  })

  app.delete('/api/tag_delegations/:id/', {
    schema: { summary: 'Revoke the delegation', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await revokeTagDelegation(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })
}
