import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { readsBodyTypes } from '../../http/body.ts'
import { NotFound, ValidationFailed } from '../../core/errors.ts'
import { INT4_MAX, isIntegerText } from '../../core/integers.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { readErrors } from '../../http/schemas.ts'
import { collectionOwner } from './collections.http.ts'
import { collectionsRepository } from './collections.repository.ts'
import { itemsRepository, type ItemRow } from './items.repository.ts'
import { CollectionItem, CollectionItemFull, ItemCreate, ItemListQuery, ItemPatch, ItemResults, UpdateOrderBody } from './items.schemas.ts'
import { createItem, deleteItem, itemsFromRows, updateItem, updateOrder } from './items.service.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { readBody } from '../../http/pk-body.ts'
import { viewContextOf } from '../../http/view-context.ts'

const MAX_ITEMS = 5000
const integer = (value: unknown) => (isIntegerText(value) ? Number(value) : value)

/** `items` of update_order read before the schema, so every fault is reported on `items` with DRF's words. */
async function readOrderItems(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null
  if (!body || typeof body !== 'object' || Array.isArray(body)) return
  const value = body.items
  if (value === undefined) throw ValidationFailed({ items: ['This field is required.'] })
  if (!Array.isArray(value)) {
    const type =
      value === null
        ? null
        : typeof value === 'object'
          ? 'dict'
          : typeof value === 'string'
            ? 'str'
            : typeof value === 'boolean'
              ? 'bool'
              : 'int'
    throw ValidationFailed({ items: [type === null ? 'This field may not be null.' : `Expected a list of items but got type "${type}".`] })
  }
  if (value.length > MAX_ITEMS) throw ValidationFailed({ items: [`Ensure this field has no more than ${MAX_ITEMS} elements.`] })
  body.items = value.map((entry, index) => {
    const fields = entry && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Record<string, unknown>) : null
    const id = integer(fields?.id)
    const order = integer(fields?.order)
    const whole = (n: unknown, min: number) => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= INT4_MAX
    if (!fields || !whole(id, 1) || !whole(order, -INT4_MAX - 1)) {
      throw ValidationFailed({
        items: [`Item ${index}: expected {"id": <item id>, "order": <integer>}, got ${JSON.stringify(entry)?.slice(0, 100)}.`],
      })
    }
    return { id, order }
  })
}

/** question_collection_items (and _full, which adds the collection), and the collection's update_order. */
export function itemRoutes(app: App): void {
  /** An item belongs to the owner of its collection. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    const item = id === null ? undefined : await itemsRepository(app.db).find(id)
    return item ? (await collectionsRepository(app.db).find(item.parent_id))?.user_id : undefined
  }

  for (const form of ['reduced', 'full'] as const) {
    const name = form === 'full' ? 'question_collection_items_full' : 'question_collection_items'
    const Item = form === 'full' ? CollectionItemFull : CollectionItem
    const render = (request: FastifyRequest, rows: ItemRow[]) => itemsFromRows(viewContextOf(app, request), rows, form, name)
    const load = async (request: FastifyRequest, id: number) => {
      const row = await itemsRepository(app.db).findVisible(id, request.caller)
      const [item] = row ? await render(request, [row]) : []
      if (!item) throw NotFound()
      return item
    }
    const label = form === 'full' ? 'Question Collection Item Full' : 'Question Collection Item'

    listRoute(app, `/api/${name}/`, {
      summary: 'Items of collections: questions and breaks, by order',
      querystring: ItemListQuery,
      item: Item,
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: {
          name: `${label} List`,
          description:
            "The questions and breaks of collections (filter parent=<collection id>), in order. The collection's owner adds, reorders and removes them.",
        },
      },
      rows: (request, list) => itemsRepository(app.db).page(request.query, request.caller, list),
      items: (rows, request) => render(request, rows),
    })

    app.post(`/api/${name}/`, {
      schema: {
        summary: 'Add a question or a break to one of your collections',
        body: ItemCreate,
        response: { 201: Item, ...writeErrors },
      },
      config: { access: 'signed-in' },
      preValidation: readBody({ parent: 'pk', object_id: 'nullable-pk', question: 'nullable-pk', order: 'integer' }),
      handler: async (request, reply) => {
        const row = await createItem(app.db, signedIn(request), request.body)
        const created = await load(request, row.id)
        return reply.code(201).header('location', created.url).send(created)
      },
    })

    app.get(`/api/${name}/:id/`, {
      schema: { summary: 'One item of a collection', params: IdParams, response: { 200: Item, ...readErrors } },
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: {
          name: `${label} Instance`,
          description: "One question or break of a collection. Its owner changes its order (or a break's content) and removes it.",
        },
      },
      handler: async (request) => load(request, request.params.id),
    })

    app.patch(`/api/${name}/:id/`, {
      schema: {
        summary: "Change an item's order, or a break's content",
        params: IdParams,
        body: ItemPatch,
        response: { 200: Item, ...writeErrors },
      },
      config: { access: 'owner', owner },
      preValidation: readBody({ parent: 'pk', object_id: 'nullable-pk', question: 'nullable-pk', order: 'integer' }),
      handler: async (request) => {
        await updateItem(app.db, signedIn(request), request.params.id, request.body)
        return load(request, request.params.id)
      },
    })

    app.delete(`/api/${name}/:id/`, {
      schema: { summary: 'Remove an item from its collection', params: IdParams, response: { 204: NoContent, ...writeErrors } },
      config: { access: 'owner', owner },
      handler: async (request, reply) => {
        await deleteItem(app.db, signedIn(request), request.params.id)
        return reply.code(204).send(null)
      },
    })
  }

  app.post('/api/question_collections/:id/update_order/', {
    schema: {
      summary: 'Set the order of every item of the collection at once',
      params: IdParams,
      body: UpdateOrderBody,
      response: { 200: ItemResults, ...writeErrors },
    },
    config: {
      access: 'owner',
      owner: collectionOwner(app),
      resource: {
        name: 'Question Collection Update Order',
        description:
          'Send {items: [{id, order}, ...]} naming every item of the collection once. All or nothing; answers the items in their new order.',
      },
    },
    preValidation: readsBodyTypes(readOrderItems),
    handler: async (request) => {
      const rows = await updateOrder(app.db, request.params.id, request.body.items)
      return {
        results: (await itemsFromRows(viewContextOf(app, request), rows, 'reduced', 'question_collection_items')) as CollectionItem[],
      }
    },
  })
}
