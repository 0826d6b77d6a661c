import type { AnsweredQuestions } from '../../access/own-records.ts'
import type { ViewContext } from '../../core/view-context.ts'
import { ValidationFailed, type FieldErrors } from '../../core/errors.ts'
import { parseIdList } from '../../core/integers.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { withFigures } from '../../disclosure/figures.ts'
import { toChoice } from '../questions/questions.mapper.ts'
import { questionOrderingWithFigures, type ChoiceRow } from '../questions/questions.repository.ts'
import type { QuestionListQuery } from '../questions/questions.schemas.ts'
import { loadWithChoices } from '../questions/published-figures.ts'
import { nextQuestionRepository, type LightRow, type Remember } from './next-question.repository.ts'
import type { KeptQuestions } from './kept-questions.ts'
import { walkPosition, type WalkShape } from './kept-walks.ts'
import { Walk, type WalkPosition } from './walk.ts'
import type { LightQuestion, NextQuestionQuery, NextQuestionResult } from './next-question.schemas.ts'

const ON = new Set(['1', 'true', 't', 'yes', 'y', 'on'])
const OFF = new Set(['', '0', 'false', 'f', 'no', 'n', 'off'])
const FLAGS = ['order', 'return_unanswered_count', 'return_full_count'] as const

/** The switches as DRF's BooleanField reads them; anything else is a 400 on that field. */
function flags(query: NextQuestionQuery): Record<(typeof FLAGS)[number], boolean> {
  const errors: FieldErrors = {}
  const out = {} as Record<(typeof FLAGS)[number], boolean>
  for (const name of FLAGS) {
    const value = (query[name] ?? '').trim().toLowerCase()
    if (!ON.has(value) && !OFF.has(value)) errors[name] = ['Must be a valid boolean.']
    out[name] = ON.has(value)
  }
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return out
}

const FILTER_NAMES = [
  'search',
  'votes__user__username',
  'user__username',
  'user__id',
  'answered_by',
  'in_collections__parent',
  'group',
  'tags__tag',
  'id__in',
] as const

function questionFilters(query: NextQuestionQuery): QuestionListQuery {
  const out: Record<string, unknown> = {}
  for (const name of FILTER_NAMES) if (query[name] !== undefined) out[name] = query[name]
  return out as QuestionListQuery
}

/**
 * Filters whose questions depend on neither the caller nor anyone's answers nor figures: their walks are kept across
 * answers, at the question set's version.
 */
const KEPT_FILTERS: ReadonlySet<string> = new Set(['in_collections__parent', 'group', 'tags__tag', 'id__in', 'user__id'])

/** What a person's kept record tells the next question: what they answered, and the question set's version then. */
export interface WalkerRecord {
  answered: AnsweredQuestions
  questionSetVersion: number
}

/** What the next question keeps: values until the data changes, people's records, versions and light forms. */
export interface NextQuestionCache {
  remember: Remember
  /** The signed-in person's kept record (null when not kept). */
  own: (userId: number) => Promise<WalkerRecord | null>
  kept: KeptQuestions
}

const NONE_ANSWERED: AnsweredQuestions = new Set<number>()

/** The questions in the light form, in the order of `rows`, with the figures everyone sees: one statement. */
async function lightQuestions(context: ViewContext, rows: LightRow[]): Promise<LightQuestion[]> {
  // The choices with the figures everyone sees (src/disclosure/figures.ts).
  const { figures, choices } = await loadWithChoices(
    context.db,
    rows.map((row) => row.id),
    context.minCellSize,
  )
  // Served questions are unanswered by definition, so the caller has no vote on them.
  return rows.map(
    (row) =>
      ({
        ...withFigures(row, figures.question(row.id)),
        my_vote: [],
        choices: choices
          .filter((choice) => choice.question_id === row.id)
          .map((choice) => toChoice(choice as unknown as ChoiceRow, context.urls)),
      }) as LightQuestion,
  )
}

/**
 * Filters on someone's answers that count private ones for this caller (their own, or anyone's for staff): the walk
 * is the caller's alone. A username is not resolved here: it may be the caller's.
 */
function ownView(query: NextQuestionQuery, caller: ViewContext['caller']): boolean {
  if (caller === null) return false
  return (
    query.votes__user__username !== undefined || (query.answered_by !== undefined && (caller.isStaff || query.answered_by === caller.id))
  )
}

/** The walk a query asks for, when it can be kept: kept filters only, in id order or a collection's order. */
function keptShape(query: NextQuestionQuery, collection: number | null, idOrder: boolean): WalkShape | null {
  if (FILTER_NAMES.some((name) => query[name] !== undefined && !KEPT_FILTERS.has(name))) return null
  if (collection === null && !idOrder) return null
  return { filters: questionFilters(query), collectionOrder: collection }
}

/**
 * The next questions the caller has not answered (at most `maxLimit`), or only the counts when asked for them:
 * a collection walked in its order when `order` is on, else the listing's ordering (docs/next-question.md).
 */
export async function nextQuestions(
  context: ViewContext,
  cache: NextQuestionCache,
  query: NextQuestionQuery,
  maxLimit: number,
): Promise<NextQuestionResult> {
  const { order, return_unanswered_count, return_full_count } = flags(query)
  const filters = { questionFilters: questionFilters(query), exclude: parseIdList(query['id__in!'] ?? '') }
  const repository = nextQuestionRepository(context.db, cache.remember)
  const caller = context.caller
  const countsOnly = return_unanswered_count || return_full_count
  const limit = countsOnly ? 0 : Math.min(query.limit_count ?? 1, maxLimit)
  const collection = order && query.in_collections__parent !== undefined ? query.in_collections__parent : null
  const ordering =
    collection === null
      ? orderingTerms(query.ordering, questionOrderingWithFigures(context.minCellSize), ['id'], column('questions.id'))
      : []
  const shape = keptShape(query, collection, repository.inIdOrder(ordering))
  const own = caller === null ? null : await cache.own(caller.id)
  const answered = caller === null ? NONE_ANSWERED : (own?.answered ?? null)
  // The version kept, or the one read with the caller's record after their own latest write, whichever is newer.
  const version = async () => Math.max(await cache.kept.version(() => repository.version()), own?.questionSetVersion ?? 0)
  let walk: WalkPosition | null = null
  if (shape) {
    walk = await walkPosition(context.db, repository, shape, { id: caller?.id ?? null, answered, version }, filters.exclude, limit)
  } else if (answered !== null && !ownView(query, caller)) {
    // Any other walk, read whole once until the data changes (its figures and answers may order or filter it).
    const key = `next-walk:${context.minCellSize}:${JSON.stringify([filters.questionFilters, query.ordering ?? '', collection])}`
    const read = await cache.remember(
      key,
      async () => new Walk((await repository.walk(filters.questionFilters, collection, ordering)).items),
    )
    walk = read.position(answered, new Set(filters.exclude), limit, Date.now())
  }
  if (walk) {
    const next = walk.next
    let results: LightQuestion[] = []
    if (next.length > 0) {
      const at = walk.version ?? (cache.kept.enabled ? await version() : 0)
      results = await cache.kept.light(next, context.urls.base, at, async (ids) => {
        // After a figures notice only the figures are read again: one statement.
        const byId = await cache.kept.rows(ids, at, (missing) => repository.lightRows(missing))
        return lightQuestions(
          context,
          ids.flatMap((id) => byId.get(id) ?? []),
        )
      })
    }
    return { returning: results.length, results, count: walk.count, unanswered: walk.unanswered }
  }
  if (countsOnly) return { returning: 0, results: [], ...(await repository.counts(filters, caller)) }
  const [counts, rows] = await repository.countsAndNext(filters, caller, ordering, limit, collection)
  const results = await lightQuestions(context, rows)
  return { returning: results.length, results, count: counts.count, unanswered: counts.unanswered }
}
