import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely'
import { shownTagVotes } from '../tags/tag-votes-count.ts'
import type { Database, Questions } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields, type OrderTerm } from '../../db/ordering.ts'
import { pageOfRows, type AnySelect, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { statisticsColumns } from '../../engines/statistics/statistics-fields.ts'
import { publishedFigureOrdering } from './published-ordering.ts'
import type { Caller } from '../../core/caller.ts'
import { filterConditions, switchedOn } from './question-filters.ts'
import type { QuestionListQuery } from './questions.schemas.ts'

export type QuestionRow = Omit<Selectable<Questions>, 'search_vector'>

/** Every column but the search vector, which no answer needs. */
export const QUESTION_COLUMNS = [
  'id',
  'user_id',
  'question',
  'slug',
  'description',
  'subtype',
  'topic_id',
  'group_id',
  'geo_id',
  'og_image',
  'perodic_repeat_interval',
  'start_at',
  'end_at',
  'publish',
  'count_comments',
  'count_comments_suggestion',
  'count_comments_reason',
  'count_comments_info',
  ...statisticsColumns('direct'),
  ...statisticsColumns('liquid'),
  'polarisation',
  'created_at',
  'modified_at',
].map((name) => `questions.${name}`) as `questions.${keyof QuestionRow & string}`[]

/** A page's question as the signed-in page query reads it: enough to find its kept JSON and whose it is. */
export interface QuestionStamp {
  id: number
  user_id: number
  /** The row's version (xmin): any change of the question's own row, its figures included, gives a new one. */
  version: string
}

/** The page query's columns when the questions come from their kept JSON (question-pieces.ts). */
const QUESTION_STAMP = ['questions.id', 'questions.user_id', sql<string>`questions.xmin::text`.as('version')] as const

export const QUESTION_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'question', 'created_at', 'modified_at', 'start_at', 'end_at', 'count_comments', 'slug'], 'questions'),
  user: column('questions.user_id'),
  votes__created_at: latestAnswerAt(null),
}

const withFigures = new Map<number, OrderingFields>()

/** QUESTION_ORDERING with the figure fields, which sort on the published figures (k = MIN_CELL_SIZE); built once per k. */
export function questionOrderingWithFigures(k: number): OrderingFields {
  let fields = withFigures.get(k)
  if (!fields) withFigures.set(k, (fields = Object.freeze({ ...QUESTION_ORDERING, ...publishedFigureOrdering('question', k) })))
  return fields
}

/** An answer's time counts for a viewer who may see the answer: a private one only for its author and staff. */
function visibleTo(viewer: Caller | null, alias: string): RawBuilder<unknown> {
  return viewer?.isStaff ? sql`true` : sql`(${sql.ref(`${alias}.private`)} = false OR ${sql.ref(`${alias}.user_id`)} = ${viewer?.id ?? 0})`
}

/**
 * When each question was last answered, as the viewer may see it (likert or choice; a private answer only for its
 * author and staff, or the order would tell when someone answered privately): two index probes per question
 * (question_votes_question_idx and question_choice_votes_one_per_question carry created_at and private). Never
 * answered sorts as oldest, so last in `-votes__created_at`.
 */
function latestAnswerAt(viewer: Caller | null): RawBuilder<unknown> {
  return sql`coalesce(greatest(
    (SELECT max(qv.created_at) FROM question_votes qv WHERE qv.question_id = questions.id AND ${visibleTo(viewer, 'qv')}),
    (SELECT max(qcv.created_at) FROM question_choice_votes qcv WHERE qcv.question_id = questions.id AND ${visibleTo(viewer, 'qcv')})),
    '-infinity'::timestamptz)`
}

/**
 * When one user answered each question, as the viewer may see it; the same index probes as latestAnswerAt, on
 * (question_id, user_id).
 */
function userAnsweredAt(user: RawBuilder<unknown>, viewer: Caller | null): RawBuilder<unknown> {
  const visible = (alias: string) => visibleTo(viewer, alias)
  return sql`coalesce(greatest(
    (SELECT max(qv.created_at) FROM question_votes qv WHERE qv.question_id = questions.id AND qv.user_id = ${user} AND ${visible('qv')}),
    (SELECT max(qcv.created_at) FROM question_choice_votes qcv WHERE qcv.question_id = questions.id AND qcv.user_id = ${user} AND ${visible('qcv')})),
    '-infinity'::timestamptz)`
}

/**
 * The listing's ordering fields for these filters. `votes__created_at` follows Django, whose ordering reuses the
 * filter's join on the answers: on a listing narrowed to one person's answers (answered_by,
 * votes__user__username, my_history) it is when that person answered; otherwise when the question was last
 * answered. Either way only answers the caller may see count. The constant QUESTION_ORDERING (other listings)
 * counts public answers only.
 */
export function questionOrdering(filters: QuestionListQuery, caller: Caller | null, k: number): OrderingFields {
  const user =
    filters.answered_by !== undefined
      ? sql`${filters.answered_by}::int`
      : filters.votes__user__username !== undefined
        ? sql`(SELECT u.id FROM users u WHERE u.username = ${filters.votes__user__username})`
        : switchedOn(filters.my_history) && caller
          ? sql`${caller.id}::int`
          : null
  return { ...questionOrderingWithFigures(k), votes__created_at: user === null ? latestAnswerAt(caller) : userAnsweredAt(user, caller) }
}

/**
 * The listing's order: the client's ordering, else a history newest answer first, a collection's questions in
 * the collection's order (`order`), anything else newest first; `answered_at` sorts by the caller's answer times.
 */
function listingOrder(filters: QuestionListQuery, caller: Caller | null, ordering: string | undefined, k: number): OrderTerm[] {
  const history = switchedOn(filters.my_history) && caller !== null
  const callerId = caller?.id
  const inCollection = filters.in_collections__parent
  const fallback = history ? '-answered_at' : inCollection !== undefined ? 'order' : '-created_at'
  return orderingTerms(ordering, questionOrdering(filters, caller, k), [fallback], column('questions.id'), (name) =>
    name === 'answered_at' && callerId !== undefined
      ? answeredAt(callerId)
      : name === 'order' && inCollection !== undefined
        ? collectionOrder(inCollection)
        : null,
  )
}

/** When the user last answered each question (likert or any choice), the order of their history; never answered sorts as oldest. */
function answeredAt(userId: number): RawBuilder<unknown> {
  return sql`coalesce(greatest(
    (SELECT max(qv.modified_at) FROM question_votes qv WHERE qv.question_id = questions.id AND qv.user_id = ${userId}),
    (SELECT max(qcv.modified_at) FROM question_choice_votes qcv WHERE qcv.question_id = questions.id AND qcv.user_id = ${userId})), '-infinity'::timestamptz)`
}

/** Where each question stands in the collection: its item's order, then the item's id, as the items list. */
function collectionOrder(collectionId: number): RawBuilder<unknown> {
  return sql`(SELECT array[item."order", item.id] FROM question_collection_items item WHERE item.parent_id = ${collectionId} AND item.question_id = questions.id)`
}

interface AnswerCore {
  id: number
  question_id: number
  value: number | null
  skipped: boolean
  private: boolean
  created_at: Date
  modified_at: Date
}
export type LikertAnswerRow = AnswerCore & { importance: number | null }
export type ChoiceAnswerRow = AnswerCore & { choice_id: number }
export type AnswerUnionRow = AnswerCore & { is_choice: boolean; choice_id: number | null; importance: number | null }

/** A user's answers to these questions, likert then choice, each by id; public ones only with `publicOnly`. */
export function answerUnion(userId: number, questionIds: number[], publicOnly: boolean) {
  const visible = publicOnly ? sql`AND NOT private` : sql``
  return sql<AnswerUnionRow>`
    SELECT * FROM (
      SELECT false AS is_choice, id, question_id, NULL::integer AS choice_id, value, skipped, private, importance, created_at, modified_at
        FROM question_votes WHERE user_id = ${userId} AND question_id = ANY(${questionIds}::integer[]) ${visible}
      UNION ALL
      SELECT true, id, question_id, choice_id, value, skipped, private, NULL, created_at, modified_at
        FROM question_choice_votes WHERE user_id = ${userId} AND question_id = ANY(${questionIds}::integer[]) ${visible}
    ) AS answers ORDER BY is_choice, id`
}

export function splitAnswers(rows: AnswerUnionRow[]): { likert: LikertAnswerRow[]; choices: ChoiceAnswerRow[] } {
  const likert: LikertAnswerRow[] = []
  const choices: ChoiceAnswerRow[] = []
  for (const { is_choice, choice_id, importance, ...row } of rows) {
    if (is_choice) choices.push({ ...row, choice_id: choice_id! })
    else likert.push({ ...row, importance })
  }
  return { likert, choices }
}

export function questionsRepository(db: Kysely<Database>) {
  // votes__user__username's user, read by the page's own statement for their_vote.
  const usernames = new Map<string, number | null>()

  /** A page's rows, with the id of votes__user__username's user when there is one (kept in `usernames`). */
  async function pageWithVoter<Row>(
    filters: QuestionListQuery,
    list: ListRequest,
    query: AnySelect,
    select: (q: AnySelect) => AnySelect,
    ordering: OrderTerm[],
  ): Promise<RowsPage<Row>> {
    const username = filters.votes__user__username
    if (username === undefined) return pageOfRows<Row>(list, query, select, ordering)
    const voter = sql<number | null>`(SELECT u.id FROM users u WHERE u.username = ${username})`.as('voter_id')
    const result = await pageOfRows<Row & { voter_id: number | null }>(list, query, (q) => select(q).select(voter), ordering)
    if (result.rows.length > 0) usernames.set(username, result.rows[0]!.voter_id)
    return { ...result, rows: result.rows.map(({ voter_id: _, ...row }) => row as Row) }
  }

  return {
    /** The listing's FROM and WHERE: what the caller may see, narrowed by the filters of spec 4.2. */
    filtered(filters: QuestionListQuery, caller: Caller | null) {
      let query = db.selectFrom('questions')
      if (!caller?.isStaff) {
        query = query.where((eb) =>
          caller
            ? eb.or([eb('questions.publish', '=', true), eb('questions.user_id', '=', caller.id)])
            : eb('questions.publish', '=', true),
        )
      }
      for (const condition of filterConditions(filters, caller)) query = query.where(condition)
      return query
    },

    /** How many questions the listing's filters match, for `?count`. */
    async count(filters: QuestionListQuery, caller: Caller | null): Promise<number> {
      const { count } = await this.filtered(filters, caller)
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow()
      return Number(count)
    },

    /** A page of the listing's questions (k = MIN_CELL_SIZE, for orderings by a figure). */
    async page(filters: QuestionListQuery, caller: Caller | null, list: ListRequest, k: number): Promise<RowsPage<QuestionRow>> {
      const ordering = listingOrder(filters, caller, list.ordering, k)
      return pageWithVoter<QuestionRow>(filters, list, this.filtered(filters, caller), (q) => q.select(QUESTION_COLUMNS), ordering)
    },

    /** The same page as stamps, for questions served from their kept JSON. */
    async stampPage(filters: QuestionListQuery, caller: Caller | null, list: ListRequest, k: number): Promise<RowsPage<QuestionStamp>> {
      const ordering = listingOrder(filters, caller, list.ordering, k)
      return pageWithVoter<QuestionStamp>(filters, list, this.filtered(filters, caller), (q) => q.select(QUESTION_STAMP), ordering)
    },

    /** One question if the caller may see it. */
    async find(id: number, caller: Caller | null): Promise<QuestionRow | undefined> {
      const [row] = await this.filtered({ id }, caller).select(QUESTION_COLUMNS).execute()
      return row as QuestionRow | undefined
    },

    /** One question's stamp if the caller may see it. */
    async findStamp(id: number, caller: Caller | null): Promise<QuestionStamp | undefined> {
      const [stamp] = await this.filtered({ id }, caller).select(QUESTION_STAMP).execute()
      return stamp
    },

    /** Questions by id, whoever may see them (the caller's access was checked by the statement that named them). */
    async byIds(ids: number[]): Promise<QuestionRow[]> {
      return db.selectFrom('questions').select(QUESTION_COLUMNS).where('questions.id', 'in', ids).execute() as Promise<QuestionRow[]>
    },

    async questionTags(questionIds: number[]) {
      if (questionIds.length === 0) return []
      return db
        .selectFrom('question_tags')
        .innerJoin('tags', 'tags.id', 'question_tags.tag_id')
        .selectAll('question_tags')
        .select(['tags.text', 'tags.followers_count', 'tags.questions_count', shownTagVotes().as('votes_count')])
        .where('question_tags.question_id', 'in', questionIds)
        .orderBy('question_tags.question_id')
        .orderBy('question_tags.position')
        .orderBy('question_tags.id')
        .execute()
    },

    async choices(questionIds: number[]) {
      if (questionIds.length === 0) return []
      return db
        .selectFrom('question_choices')
        .selectAll()
        .where('question_id', 'in', questionIds)
        .orderBy('question_id')
        .orderBy('store_number')
        .execute()
    },

    /** Current answers of one user on these questions, likert and choice alike, in one statement. */
    async answersOf(userId: number, questionIds: number[], publicOnly: boolean) {
      if (questionIds.length === 0) return { likert: [], choices: [] }
      const { rows } = await answerUnion(userId, questionIds, publicOnly).execute(db)
      return splitAnswers(rows)
    },

    /** The user of a username: no statement when this repository's page already read it (votes__user__username). */
    async userIdByUsername(username: string): Promise<number | null> {
      if (usernames.has(username)) return usernames.get(username)!
      const row = await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst()
      return row?.id ?? null
    },
  }
}

export type QuestionsRepository = ReturnType<typeof questionsRepository>
export type QuestionTagRow = Awaited<ReturnType<QuestionsRepository['questionTags']>>[number]
export type ChoiceRow = Awaited<ReturnType<QuestionsRepository['choices']>>[number]
export type Answers = Awaited<ReturnType<QuestionsRepository['answersOf']>>
