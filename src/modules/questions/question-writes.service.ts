import { notificationEvents } from '../../engines/notifications/notification-events.ts'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, ValidationFailed, type FieldErrors, invalidPk } from '../../core/errors.ts'
import { questionCounters } from './question-counters.repository.ts'
import { removeQuestion } from './question-removal.repository.ts'
import {
  choiceCountErrors,
  DATE_TIME_MESSAGE,
  isWebLink,
  mergeErrors,
  orderedTags,
  parseDateTime,
  planChoices,
  requestedSubtype,
  windowErrors,
} from './question-rules.ts'
import { questionWritesRepository } from './question-writes.repository.ts'
import { retagQuestion } from './retag.service.ts'
import { tagOrder } from '../../engines/liquid/liquid.retag.ts'
import type { ChoiceInput, LinkInput, QuestionCreateBody, QuestionUpdateBody } from './question-writes.schemas.ts'

const BLANK = 'This field may not be blank.'

/** DRF's CharField trims surrounding whitespace before checking for blanks. */
function trimmed(field: string, value: string, errors: FieldErrors): string {
  const text = value.trim()
  if (!text) errors[field] = [BLANK]
  return text
}

/** A timestamp field of the body: undefined when absent, null when cleared. */
function dateTimeField(field: 'start_at' | 'end_at', value: string | null | undefined, errors: FieldErrors): Date | null | undefined {
  if (value === undefined || value === null) return value
  const parsed = parseDateTime(value)
  if (!parsed) errors[field] = [DATE_TIME_MESSAGE]
  return parsed
}

function cleanLinks(links: LinkInput[], errors: FieldErrors): { link: string; title: string }[] {
  const out = links.map((entry) => ({ link: entry.link.trim(), title: (entry.title ?? '').trim() }))
  if (out.some((entry) => !isWebLink(entry.link))) errors.links = ['Enter a valid URL.']
  return out
}

function unknownIds(field: string, ids: number[], found: Set<number>): FieldErrors {
  const missing = [...new Set(ids)].filter((id) => !found.has(id))
  return missing.length ? { [field]: missing.map(invalidPk) } : {}
}

/** Tags and topic must name tags; the group must exist and, unless it is open, count the author as a member. */
async function referenceErrors(
  trx: Kysely<Database>,
  caller: Caller,
  refs: { tags?: number[]; topic?: number | null; geo?: number | null; group?: number | null },
): Promise<FieldErrors> {
  const repository = questionWritesRepository(trx)
  const tagIds = [...(refs.tags ?? []), ...(refs.topic ? [refs.topic] : [])]
  const [tags, areas] = await Promise.all([
    repository.existingIds('tags', tagIds),
    repository.existingIds('areas', refs.geo ? [refs.geo] : []),
  ])
  const errors = mergeErrors(
    unknownIds('tags', refs.tags ?? [], tags),
    refs.topic ? unknownIds('topic', [refs.topic], tags) : {},
    refs.geo ? unknownIds('geo', [refs.geo], areas) : {},
  )
  if (refs.group) {
    const group = await repository.groupAccess(refs.group, caller.id)
    if (!group) errors.group = [invalidPk(refs.group)]
    else if (group.join_policy !== 'open' && !group.member && !caller.isStaff)
      errors.group = ['Only members of this group can ask questions in it.']
  }
  return errors
}

/** POST /api/questions/: the question, its tags, choices, links, group and collection items in one transaction. */
export async function createQuestion(db: Kysely<Database>, caller: Caller, body: QuestionCreateBody): Promise<number> {
  const errors: FieldErrors = {}
  const title = trimmed('question', body.question, errors)
  const texts = (body.choices ?? []).map((choice) => choice.text.trim())
  if (texts.some((text) => !text)) errors.choices = [BLANK]
  const subtype = requestedSubtype(body.subtype, body.choices, 'likert')
  Object.assign(errors, choiceCountErrors(subtype, texts.length))
  const startAt = dateTimeField('start_at', body.start_at, errors) ?? null
  const endAt = dateTimeField('end_at', body.end_at, errors) ?? null
  Object.assign(errors, windowErrors(startAt, endAt))
  const links = cleanLinks(body.links ?? [], errors)
  const tagIds = (body.tags ?? []).map((entry) => entry.tag.id)
  const collectionIds = [...new Set((body.collections ?? []).map((entry) => entry.parent.id))]

  return db.transaction().execute(async (trx) => {
    const repository = questionWritesRepository(trx)
    const counters = questionCounters(trx)
    const collections = await repository.lockOwnCollections(caller.id, collectionIds)
    const found = mergeErrors(
      errors,
      await referenceErrors(trx, caller, { tags: tagIds, topic: body.topic, geo: body.geo, group: body.group }),
      unknownIds('collections', collectionIds, collections),
    )
    if (Object.keys(found).length) throw ValidationFailed(found)

    const questionId = await repository.insertQuestion({
      user_id: caller.id,
      question: title,
      description: (body.description ?? '').trim(),
      subtype,
      group_id: body.group ?? null,
      geo_id: body.geo ?? null,
      og_image: body.ogImage ?? null,
      perodic_repeat_interval: body.perodic_repeat_interval ?? null,
      publish: body.publish ?? true,
      start_at: startAt,
      end_at: endAt,
    })
    // The author's row, then the tags in id order, as answering transactions lock them.
    await counters.addAuthorQuestions(caller.id, 1)
    const tags = orderedTags(tagIds, body.topic)
    await counters.lockTags(tags)
    await repository.setTags(questionId, tags)
    await counters.retag(questionId, new Set(), await counters.carriedTags(questionId))
    await repository.insertChoices(questionId, texts)
    await repository.insertLinks(questionId, caller.id, links)
    if (body.group) await repository.connectGroup(body.group, questionId)
    await repository.appendToCollections(questionId, collectionIds)
    await counters.moveArea(null, body.geo ?? null)
    await counters.addCollectionQuestions(collectionIds, 1)
    await notificationEvents.asked(trx, { id: questionId, user_id: caller.id })
    // A draft is counted only by its author (and staff) in the collections: their answerers hear of it when it is published.
    if (body.publish ?? true)
      for (const collectionId of collectionIds) await notificationEvents.collectionGrew(trx, collectionId, caller.id, [questionId])
    return questionId
  })
}

/**
 * PATCH and PUT: only the fields sent change. Once anyone has answered, the wording, the subtype and the
 * answered choices stay as they were answered; tags, topic, area, description, publishing and the voting
 * window stay editable. The group is set at creation only.
 */
export async function updateQuestion(db: Kysely<Database>, caller: Caller, questionId: number, body: QuestionUpdateBody): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = questionWritesRepository(trx)
    const counters = questionCounters(trx)
    const current = await counters.lockQuestion(questionId)
    if (!current) throw NotFound()
    const answered = await counters.isAnswered(questionId)
    const errors: FieldErrors = {}
    const values: Parameters<typeof repository.update>[1] = {}

    if (body.question !== undefined) {
      const title = trimmed('question', body.question, errors)
      if (title && title !== current.question && answered)
        errors.question = ['This question has answers; its wording can no longer change.']
      values.question = title
    }
    const subtype = requestedSubtype(body.subtype, body.choices, current.subtype as 'likert' | 'mcq')
    if (subtype !== current.subtype) {
      if (answered) errors.subtype = ['This question has answers; its subtype can no longer change.']
      values.subtype = subtype
    }
    let choicePlan: ReturnType<typeof planChoices>['plan'] | null = null
    if (body.choices !== undefined || subtype !== current.subtype) {
      const stored = (await repository.choicesWithAnswers(questionId)).map((row) => ({
        id: row.id,
        text: row.text,
        answered: Boolean(row.answered),
      }))
      const requested: ChoiceInput[] = (body.choices ?? (subtype === 'likert' ? [] : stored)).map((choice) => ({
        id: choice.id,
        text: choice.text.trim(),
      }))
      if (requested.some((choice) => !choice.text)) errors.choices = [BLANK]
      const { plan, errors: planErrors } = planChoices(stored, requested)
      Object.assign(errors, mergeErrors(planErrors, choiceCountErrors(subtype, plan.list.length)))
      choicePlan = plan
    }
    if (body.group !== undefined && body.group !== current.group_id) {
      errors.group = ['The group of a question is set when it is asked; group admins connect it to further groups.']
    }

    let tags: number[] | null = null
    if (body.tags !== undefined || body.topic !== undefined) {
      const storedTags = await tagOrder(trx, questionId)
      const tagIds = body.tags ? body.tags.map((entry) => entry.tag.id) : storedTags
      const keptTopic = current.topic_id !== null && tagIds.includes(current.topic_id) ? current.topic_id : undefined
      tags = orderedTags(tagIds, body.topic !== undefined && body.topic !== null ? body.topic : keptTopic)
    }
    Object.assign(
      errors,
      await referenceErrors(trx, caller, { tags: body.tags?.map((entry) => entry.tag.id), topic: body.topic, geo: body.geo }),
    )

    const startAt = dateTimeField('start_at', body.start_at, errors)
    const endAt = dateTimeField('end_at', body.end_at, errors)
    if (!errors.start_at && !errors.end_at) {
      Object.assign(errors, windowErrors(startAt === undefined ? current.start_at : startAt, endAt === undefined ? current.end_at : endAt))
    }
    if (Object.keys(errors).length) throw ValidationFailed(errors)

    if (startAt !== undefined) values.start_at = startAt
    if (endAt !== undefined) values.end_at = endAt
    if (body.description !== undefined) values.description = (body.description ?? '').trim()
    if (body.ogImage !== undefined) values.og_image = body.ogImage
    if (body.publish !== undefined) values.publish = body.publish
    if (body.perodic_repeat_interval !== undefined) values.perodic_repeat_interval = body.perodic_repeat_interval
    if (body.geo !== undefined) values.geo_id = body.geo
    await repository.update(questionId, values)
    if (choicePlan) await repository.applyChoicePlan(questionId, choicePlan)
    if (tags) {
      const next = tags
      await retagQuestion(trx, questionId, caller.id, next, () => repository.setTags(questionId, next))
    }
    if (body.geo !== undefined) await counters.moveArea(current.geo_id, body.geo)
    // Published: every collection holding it gains a question for those who could not list it before.
    if (body.publish === true && !current.publish)
      for (const collectionId of await repository.collectionsHolding(questionId))
        await notificationEvents.collectionGrew(trx, collectionId, caller.id, [questionId], 'published')
  })
}

/** DELETE: only while nobody has answered; answered questions are unpublished instead, so answers and every figure stay. */
export async function deleteQuestion(db: Kysely<Database>, questionId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const counters = questionCounters(trx)
    const question = await counters.lockQuestionForRemoval(questionId)
    if (!question) throw NotFound()
    if (await counters.isAnswered(questionId)) {
      throw ValidationFailed({
        non_field_errors: ['This question has answers and cannot be deleted; unpublish it instead (publish: false).'],
      })
    }
    await removeQuestion(trx, question)
  })
}
