import type { Kysely } from 'kysely'
import type { Static } from 'typebox'
import type { Config } from '../../config.ts'
import { visibleQuestion } from '../../access/question-access.ts'
import type { Caller } from '../../core/caller.ts'
import { ApiError, NotFound, ValidationFailed, fieldError, invalidPk } from '../../core/errors.ts'
import { iso } from '../../core/time.ts'
import type { ViewContext } from '../../core/view-context.ts'
import type { Database } from '../../db/database.ts'
import { signingKey } from '../accounts/secrets.ts'
import { collectionsRepository } from '../collections/collections.repository.ts'
import { collectionsFromRows } from '../collections/collections.service.ts'
import { itemsRepository } from '../collections/items.repository.ts'
import { questionsFromRows } from '../questions/questions.service.ts'
import { verifiedLinkId } from './link-tokens.ts'
import { shareableLinksRepository, type LinkRow } from './shareable-links.repository.ts'
import { DEFAULT_LINK_DAYS, type LinkCreate, type SharedResults } from './shareable-links.schemas.ts'

const Gone = (text: string) => new ApiError(410, { detail: text })

/** The caller shares a published question they can see, or a collection. */
export async function createLink(db: Kysely<Database>, config: Config, caller: Caller, body: Static<typeof LinkCreate>): Promise<LinkRow> {
  const { question, collection, expires_in_days: days = DEFAULT_LINK_DAYS } = body
  if ((question === undefined) === (collection === undefined))
    throw ValidationFailed({ non_field_errors: ['Give either a question or a collection.'] })
  if (question !== undefined) {
    const found = await visibleQuestion(db, caller, question)
    if (!found) throw fieldError('question', invalidPk(question))
    // A draft is for its author (and staff) only: a link would open it to anyone holding it.
    if (!found.publish) throw fieldError('question', 'Only published questions can be shared.')
  }
  if (collection !== undefined && !(await collectionsRepository(db).find(collection))) throw fieldError('collection', invalidPk(collection))
  return shareableLinksRepository(db).create(await signingKey(db, config), {
    user_id: caller.id,
    question_id: question ?? null,
    collection_id: collection ?? null,
    target_url: question !== undefined ? `/api/questions/${question}/` : `/api/question_collections/${collection}/`,
    days,
  })
}

/** The link a token opens: 404 for a token that is not ours, 410 once revoked or expired. */
export async function openLink(db: Kysely<Database>, config: Config, token: string): Promise<LinkRow> {
  const id = verifiedLinkId(await signingKey(db, config), token)
  const row = id === null ? undefined : await shareableLinksRepository(db).find(id)
  if (!row || row.code !== token) throw NotFound()
  if (row.revoked_at !== null) throw Gone('This link was revoked by the person who shared it.')
  if (new Date(row.expires_at).getTime() <= Date.now()) throw Gone('This link has expired.')
  return row
}

/**
 * The results a link opens, as an anonymous caller sees them now, whoever opens or made it: `anonymous` is a
 * view context without a caller.
 */
export async function sharedResults(anonymous: ViewContext, row: LinkRow): Promise<Static<typeof SharedResults>> {
  const { db } = anonymous
  let questionIds: number[]
  let collection = null
  if (row.collection_id !== null) {
    // As anyone sees it: its counts are those of the published questions the page lists.
    const found = await collectionsRepository(db).findFor(row.collection_id, null)
    if (!found) throw NotFound()
    ;[collection] = await collectionsFromRows(anonymous, [found], 'full')
    questionIds = await itemsRepository(db).questionIdsOf(row.collection_id)
  } else questionIds = [row.question_id!]
  // The rows and the builder of the anonymous question detail: drafts are not there, figures as anyone sees them.
  const rows = questionIds.length ? await shareableLinksRepository(db).anonymousQuestions(questionIds) : []
  const byId = new Map((await questionsFromRows(anonymous, rows)).map((question) => [question.id, question]))
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
