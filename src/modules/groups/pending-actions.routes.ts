import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Static, TSchema } from 'typebox'
import type { Caller } from '../../core/caller.ts'
import { NotFound } from '../../core/errors.ts'
import type { ViewContext } from '../../core/view-context.ts'
import type { ListRequest, RowsPage } from '../../db/paging.ts'
import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { EmptyBody, IdParams, writeErrors } from '../../http/route-schemas.ts'
import { readErrors } from '../../http/schemas.ts'
import { viewContextOf } from '../../http/view-context.ts'
import { groupAccess } from './group-access.repository.ts'

/** The database the routes hand their services. */
type Db = App['db']

/** Who may take an action on a pending invitation or request: the person it names, the group's administrators, or either. */
export type Party = 'person' | 'administrator' | 'either'

interface PendingRow {
  group_id: number
  user_id: number | null
}

/**
 * Invitations and join requests are one kind of resource: something pending between a person and a group,
 * listed to both sides, created by one, answered by actions (accept, decline…) each reserved to one party.
 */
export interface PendingActionsSpec<
  Row extends PendingRow,
  Query extends TSchema,
  Item extends TSchema,
  Create extends TSchema,
  Answer extends string,
> {
  /** The resource's path under /api/ and the name its pages are called by ("Group Invite"). */
  path: string
  name: string
  item: Item
  list: { summary: string; description: string; querystring: Query }
  create: { summary: string; body: Create; run: (db: Db, caller: Caller, body: Static<Create>) => Promise<Row> }
  detail: { summary: string; description: string }
  repository: (db: Db) => {
    find(id: number): Promise<Row | undefined>
    page(filters: Static<Query>, caller: Caller, list: ListRequest): Promise<RowsPage<Row>>
  }
  render: (context: ViewContext, rows: Row[]) => Promise<Static<Item>[]>
  actions: { answer: Answer; party: Party; summary: string }[]
  answer: (db: Db, id: number, answer: Answer, caller: Caller) => Promise<Row>
}

export function pendingActionRoutes<
  Row extends PendingRow,
  Query extends TSchema,
  Item extends TSchema,
  Create extends TSchema,
  Answer extends string,
>(app: App, spec: PendingActionsSpec<Row, Query, Item, Create, Answer>): void {
  // Registered without the TypeBox provider's inference: the schemas are generic here, and the spec's own types carry them.
  const routes = app as FastifyInstance
  const base = `/api/${spec.path}/`
  const repository = () => spec.repository(app.db)
  const one = async (request: FastifyRequest, row: Row | undefined) => {
    if (!row) throw NotFound()
    const [item] = await spec.render(viewContextOf(app, request), [row])
    return item
  }
  /** The owner check: the person the row names, the group's administrators, or either. */
  const controller = (party: Party) => async (request: FastifyRequest) => {
    const id = idParam(request)
    const row = id === null ? undefined : await repository().find(id)
    if (!row) return undefined
    const callerId = signedIn(request).id
    if (party === 'person') return row.user_id
    if (party === 'either' && row.user_id === callerId) return callerId
    return groupAccess(app.db).controller(row.group_id, callerId)
  }
  const idOf = (request: FastifyRequest) => (request.params as { id: number }).id

  listRoute(app, base, {
    summary: spec.list.summary,
    querystring: spec.list.querystring,
    item: spec.item,
    config: { access: 'signed-in', resource: { name: `${spec.name} List`, description: spec.list.description } },
    rows: (request, list) => repository().page(request.query as Static<Query>, signedIn(request), list),
    items: (rows, request) => spec.render(viewContextOf(app, request), rows),
  })

  routes.post(base, {
    schema: { summary: spec.create.summary, body: spec.create.body, response: { 201: spec.item, ...writeErrors } },
    config: { access: 'signed-in' },
    handler: async (request, reply) =>
      reply.code(201).send(await one(request, await spec.create.run(app.db, signedIn(request), request.body as Static<Create>))),
  })

  routes.get(`${base}:id/`, {
    schema: { summary: spec.detail.summary, params: IdParams, response: { 200: spec.item, ...readErrors } },
    config: {
      access: 'owner',
      owner: controller('either'),
      resource: { name: `${spec.name} Instance`, description: spec.detail.description },
    },
    handler: async (request) => one(request, await repository().find(idOf(request))),
  })

  for (const { answer, party, summary } of spec.actions) {
    const name = answer.charAt(0).toUpperCase() + answer.slice(1)
    routes.post(`${base}:id/${answer}/`, {
      schema: { summary, params: IdParams, body: EmptyBody, response: { 200: spec.item, ...writeErrors } },
      config: {
        access: 'owner',
        owner: controller(party),
        resource: { name: `${spec.name} ${name}`, description: `${summary}. The body may be empty.` },
      },
      handler: async (request) => one(request, await spec.answer(app.db, idOf(request), answer, signedIn(request))),
    })
  }
}
