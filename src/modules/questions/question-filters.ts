import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { Database } from '../../db/database.ts'
import { whereRelated } from '../../db/related.ts'
import type { Caller } from '../../core/caller.ts'
import { parseIdList } from '../../core/integers.ts'
import type { QuestionListQuery } from './questions.schemas.ts'

type QuestionsEb = ExpressionBuilder<Database, 'questions'>
type Condition = (eb: QuestionsEb) => Expression<SqlBool>
type FilterName = keyof QuestionListQuery
/** How one filter narrows the listing; null when its value narrows nothing (an empty search, a switch set off). */
type Narrowing<K extends FilterName> = (value: NonNullable<QuestionListQuery[K]>, caller: Caller | null) => Condition | null

/** Words of a search made safe for to_tsquery: letters and digits only, each matched as a prefix. */
export function searchQuery(text: string): string | null {
  const words = wordsOf(text)
  if (words.length === 0) return null
  return words.map((word) => `${word}:*`).join(' & ')
}

function wordsOf(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32)
}

const OFF_VALUES = new Set(['', '0', 'false', 'f', 'n', 'no', 'off'])

/** A switch of the query string: on for any value but an empty or false-like one. */
export function switchedOn(value: string | undefined): boolean {
  return value !== undefined && !OFF_VALUES.has(value.trim().toLowerCase())
}

const nothing: Condition = () => sql<SqlBool>`false`

/**
 * Questions the user answered. A private answer is seen only by its author and staff: to anyone else
 * the question is not among those the user answered.
 */
function answeredBy(
  eb: QuestionsEb,
  userId: number | SelectQueryBuilder<Database, 'questions' | 'users', { id: number }>,
  viewer: Caller | null,
) {
  let likert = eb
    .selectFrom('question_votes as qv')
    .select('qv.id')
    .whereRef('qv.question_id', '=', 'questions.id')
    .where('qv.user_id', '=', userId)
  let choice = eb
    .selectFrom('question_choice_votes as qcv')
    .select('qcv.id')
    .whereRef('qcv.question_id', '=', 'questions.id')
    .where('qcv.user_id', '=', userId)
  if (!viewer?.isStaff) {
    const viewerId = viewer?.id ?? 0
    likert = likert.where((vote) => vote.or([vote('qv.private', '=', false), vote('qv.user_id', '=', viewerId)]))
    choice = choice.where((vote) => vote.or([vote('qcv.private', '=', false), vote('qcv.user_id', '=', viewerId)]))
  }
  return eb.or([eb.exists(likert), eb.exists(choice)])
}

/** Questions whose area is the caller's district, region or country. */
function nearCaller(callerId: number): Condition {
  return (eb) =>
    eb.exists(
      eb
        .selectFrom('users as me')
        .select('me.id')
        .where('me.id', '=', callerId)
        .where((me) =>
          me.or((['me.district_id', 'me.region_id', 'me.country_id'] as const).map((place) => me(place, '=', me.ref('questions.geo_id')))),
        ),
    )
}

/** A group's questions: its active connections, all of them, or its disabled ones. */
const inGroup = (active: boolean | undefined) => (group_id: number) => () =>
  whereRelated('group_question_connections as gqc', ['question_id', 'questions.id'], { group_id, active })

/**
 * The listing's filters (spec 4.2): name -> how its value narrows the query. A filter left out of the query string
 * narrows nothing. Each adds one condition to the listing's statements, never a statement of its own.
 */
const QUESTION_FILTERS: { [K in FilterName]?: Narrowing<K> } = {
  id: (id) => (eb) => eb('questions.id', '=', id),
  id__in: (ids) => (eb) => eb('questions.id', 'in', [...parseIdList(ids), -1]),
  subtype: (subtype) => (eb) => eb('questions.subtype', '=', subtype),
  search: (text) => {
    const tsquery = searchQuery(text)
    return tsquery ? () => sql<SqlBool>`questions.search_vector @@ to_tsquery('english', ${tsquery})` : null
  },
  exact_question: (text) => {
    const words = wordsOf(text)
    return words.length ? () => sql<SqlBool>`questions.question ~* ${`\\m(${words.join('|')})\\M`}` : null
  },
  user__username: (username) => () => whereRelated('users as author', ['id', 'questions.user_id'], { username }),
  user__id: (userId) => (eb) => eb('questions.user_id', '=', userId),
  answered_by: (userId, caller) => (eb) => answeredBy(eb, userId, caller),
  votes__user__username: (username, caller) => (eb) =>
    answeredBy(eb, eb.selectFrom('users').select('users.id').where('users.username', '=', username), caller),
  in_collections__parent: (parent_id) => () =>
    whereRelated('question_collection_items as item', ['question_id', 'questions.id'], { parent_id }),
  group: inGroup(true),
  in_group_all: inGroup(undefined),
  in_group_disabled: inGroup(false),
  tags__tag: (tag_id) => () => whereRelated('question_tags as qt', ['question_id', 'questions.id'], { tag_id }),
  topic: (topicId) => (eb) => eb('questions.topic_id', '=', topicId),
  nearby: (value, caller) => (!switchedOn(value) ? null : caller ? nearCaller(caller.id) : nothing),
  my_history: (value, caller) => (!switchedOn(value) ? null : caller ? (eb) => answeredBy(eb, caller.id, caller) : nothing),
}

function narrowing<K extends FilterName>(name: K, filters: QuestionListQuery, caller: Caller | null): Condition | null {
  const value = filters[name]
  const narrow = QUESTION_FILTERS[name]
  return value === undefined || !narrow ? null : narrow(value, caller)
}

/** The conditions of these filters, in the table's order. */
export function filterConditions(filters: QuestionListQuery, caller: Caller | null): Condition[] {
  const conditions: Condition[] = []
  for (const name of Object.keys(QUESTION_FILTERS) as FilterName[]) {
    const condition = narrowing(name, filters, caller)
    if (condition) conditions.push(condition)
  }
  return conditions
}
