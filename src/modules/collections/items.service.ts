import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, PermissionDenied, ValidationFailed, fieldError, type FieldErrors, invalidPk } from '../../core/errors.ts'
import { iso } from '../../core/time.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { visibleQuestion } from '../../access/question-access.ts'
import { QUESTION_COLUMNS, questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import { questionsFromRows } from '../questions/questions.service.ts'
import { collectionsRepository } from './collections.repository.ts'
import { collectionsFromRows } from './collections.service.ts'
import { itemsRepository, type ItemRow } from './items.repository.ts'
import type { BreakContent, CollectionItem, CollectionItemFull, ItemCreate, ItemPatch } from './items.schemas.ts'
import { notificationEvents } from '../../engines/notifications/notification-events.ts'
import type { ViewContext } from '../../core/view-context.ts'

const ALREADY_THERE = 'This question is already in the collection.'
const MAX_TEXT = 20000

/** Items for a page of rows: their questions in full form and (full form) their collections, a fixed number of statements. */
export async function itemsFromRows(
  context: ViewContext,
  rows: ItemRow[],
  form: 'reduced' | 'full',
  resource: string,
): Promise<(CollectionItem | CollectionItemFull)[]> {
  if (rows.length === 0) return []
  const questionIds = [...new Set(rows.map((row) => row.question_id).filter((id): id is number => id !== null))]
  const [questionRows, parents] = await Promise.all([
    questionIds.length
      ? questionsRepository(context.db)
          .filtered({ id__in: questionIds.join(',') }, context.caller)
          .select(QUESTION_COLUMNS)
          .execute()
      : Promise.resolve([]),
    form === 'full'
      ? collectionsRepository(context.db).findManyFor(
          rows.map((row) => row.parent_id),
          context.caller,
        )
      : Promise.resolve([]),
  ])
  const [questions, collections] = await Promise.all([
    questionsFromRows(context, questionRows as QuestionRow[]),
    collectionsFromRows(context, parents, 'reduced'),
  ])
  const questionById = new Map(questions.map((question) => [question.id, question]))
  const collectionById = new Map(collections.map((collection) => [collection.id, collection]))
  // A question the caller cannot see (someone's draft) is left out, as in the listing.
  return rows
    .filter((row) => row.type === 'B' || questionById.has(row.question_id!))
    .map((row) => {
      const item: CollectionItem = {
        id: row.id,
        url: context.urls.detail(resource, row.id),
        parent: row.parent_id,
        order: row.order,
        type: row.type as 'Q' | 'B',
        object_id: row.question_id,
        content_object: row.type === 'Q' ? questionById.get(row.question_id!)! : breakOf(row.content),
        created_at: iso(row.created_at),
        modified_at: iso(row.modified_at),
      }
      return form === 'full' ? { ...item, parent_info: collectionById.get(row.parent_id)! } : item
    })
}

function breakOf(content: unknown): BreakContent {
  const value = (content ?? {}) as Partial<BreakContent>
  return { title: String(value.title ?? ''), text: String(value.text ?? '') }
}

/** A break's content as the clients send it: `{title, text}`, or a list holding one such object. */
function breakContent(value: unknown, errors: FieldErrors): BreakContent | undefined {
  let content = value
  if (Array.isArray(content)) {
    if (content.length !== 1) {
      errors.content_object = ['A break takes one {title, text} object.']
      return undefined
    }
    content = content[0]
  }
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    errors.content_object = [
      content === null || content === undefined ? 'This field is required.' : 'Invalid data. Expected a dictionary with title and text.',
    ]
    return undefined
  }
  const { title = '', text = '' } = content as Record<string, unknown>
  if (typeof title !== 'string' || typeof text !== 'string') {
    errors.content_object = ['title and text must be strings.']
    return undefined
  }
  if (title.length > 500 || text.length > MAX_TEXT) {
    errors.content_object = [`Ensure title has no more than 500 characters and text no more than ${MAX_TEXT}.`]
    return undefined
  }
  return { title: title.trim(), text }
}

function typeOf(body: ItemPatch, errors: FieldErrors): 'Q' | 'B' | undefined {
  if (body.type !== undefined) {
    if (body.type === 'Q' || body.type === 'B') return body.type
    errors.type = [`"${body.type}" is not a valid choice.`]
    return undefined
  }
  const questionId = body.object_id ?? body.question
  if (questionId !== undefined && questionId !== null) return 'Q'
  if (body.content_object !== undefined) return 'B'
  errors.type = ['This field is required.']
  return undefined
}

/** The collection locked for a write of its items, if the caller owns it (or is staff). */
async function ownCollection(trx: Kysely<Database>, caller: Caller, collectionId: number, missing: () => Error) {
  const collection = await collectionsRepository(trx).lock(collectionId)
  if (!collection) throw missing()
  if (collection.user_id !== caller.id && !caller.isStaff) throw PermissionDenied()
  return collection
}

/** Adds a question or a break; the order defaults to after the last item. Counters move in the same transaction. */
export async function createItem(db: Kysely<Database>, caller: Caller, body: ItemCreate): Promise<ItemRow> {
  const errors: FieldErrors = {}
  const type = typeOf(body, errors)
  const content = type === 'B' ? breakContent(body.content_object, errors) : null
  const questionId = type === 'Q' ? (body.object_id ?? body.question ?? null) : null
  if (type === 'Q' && questionId === null) errors.object_id = ['This field is required.']
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        // The question before the collection, the order a question's deletion takes them in.
        if (questionId !== null) await itemsRepository(trx).holdQuestion(questionId)
        await ownCollection(trx, caller, body.parent, () => fieldError('parent', invalidPk(body.parent)))
        const items = itemsRepository(trx)
        let published = false
        if (questionId !== null) {
          const question = await visibleQuestion(trx, caller, questionId)
          if (!question) throw fieldError('object_id', invalidPk(questionId))
          if (await items.hasQuestion(body.parent, questionId)) throw fieldError('object_id', ALREADY_THERE)
          published = question.publish
        }
        const order = body.order ?? (await items.nextOrder(body.parent))
        const row = await items.insert({ parent_id: body.parent, type: type!, question_id: questionId, content: content ?? null, order })
        await collectionsRepository(trx).addCounts(body.parent, type === 'Q' ? 1 : 0, 1)
        // A draft is counted by nobody it would tell (listed-counts.ts): they hear of it once it is published.
        if (questionId !== null && published) await notificationEvents.collectionGrew(trx, body.parent, caller.id, [questionId])
        return row
      }),
    // A question deleted meanwhile, or the same question added by a concurrent request.
    { unique: { object_id: [ALREADY_THERE] }, missing: () => ({ object_id: [invalidPk(questionId)] }) },
  )
}

/**
 * Changes the order, or a break's content. The web app sends back the whole item as it read it: parent,
 * type and object_id may come along unchanged; a different value is refused (delete and add instead).
 */
export async function updateItem(db: Kysely<Database>, caller: Caller, id: number, body: ItemPatch): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const found = await itemsRepository(trx).find(id)
    if (!found) throw NotFound()
    await ownCollection(trx, caller, found.parent_id, NotFound)
    const items = itemsRepository(trx)
    const item = await items.find(id)
    if (!item) throw NotFound()
    const errors: FieldErrors = {}
    if (body.parent !== undefined && body.parent !== item.parent_id)
      errors.parent = ['An item cannot move to another collection; delete it and add it there.']
    if (body.type !== undefined && body.type !== item.type) errors.type = ['The type of an item cannot change.']
    const questionId = body.object_id ?? body.question
    if (item.type === 'Q' && questionId !== undefined && questionId !== item.question_id) {
      errors.object_id = ['The question of an item cannot change; delete the item and add the other question.']
    }
    const content = item.type === 'B' && body.content_object !== undefined ? breakContent(body.content_object, errors) : undefined
    if (Object.keys(errors).length) throw ValidationFailed(errors)
    await items.update(id, { order: body.order, content })
    await collectionsRepository(trx).touch(item.parent_id)
  })
}

export async function deleteItem(db: Kysely<Database>, caller: Caller, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const found = await itemsRepository(trx).find(id)
    if (!found) throw NotFound()
    await ownCollection(trx, caller, found.parent_id, NotFound)
    const item = await itemsRepository(trx).find(id)
    if (!item) throw NotFound()
    await itemsRepository(trx).remove(id)
    await collectionsRepository(trx).addCounts(item.parent_id, item.type === 'Q' ? -1 : 0, -1)
  })
}

/** Why a reorder cannot apply: unknown or foreign ids, repeats, and items left out. */
function orderProblems(sent: { id: number }[], current: ItemRow[]): string[] {
  const known = new Set(current.map((row) => row.id))
  const seen = new Set<number>()
  const problems: string[] = []
  for (const { id } of sent) {
    if (seen.has(id)) problems.push(`Item ${id} is listed more than once.`)
    else if (!known.has(id)) problems.push(`Invalid pk "${id}" - not an item of this collection.`)
    seen.add(id)
  }
  const missing = current.filter((row) => !seen.has(row.id)).map((row) => row.id)
  if (missing.length) problems.push(`Every item of the collection must be listed; missing: ${missing.join(', ')}.`)
  return [...new Set(problems)]
}

/**
 * Sets the order of every item of the collection at once, all or nothing. The collection row is locked
 * first, so two reorders (or a reorder and an added item) never interleave: the later one applies whole.
 */
export async function updateOrder(db: Kysely<Database>, collectionId: number, sent: { id: number; order: number }[]): Promise<ItemRow[]> {
  return db.transaction().execute(async (trx) => {
    if (!(await collectionsRepository(trx).lock(collectionId))) throw NotFound()
    const items = itemsRepository(trx)
    const problems = orderProblems(sent, await items.ofCollection(collectionId))
    if (problems.length) throw ValidationFailed({ items: problems })
    await items.setOrders(collectionId, sent)
    await collectionsRepository(trx).touch(collectionId)
    return items.ofCollection(collectionId)
  })
}
