import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import type { OrderTerm } from '../../db/ordering.ts'
import { statisticsColumns } from '../../engines/statistics/statistics-fields.ts'
import { questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import type { QuestionListQuery } from '../questions/questions.schemas.ts'

const LIGHT_NAMES = ['id', 'question', 'description', 'slug', 'subtype', ...statisticsColumns('liquid'), 'polarisation'] as const
const LIGHT_COLUMNS = LIGHT_NAMES.map((name) => `questions.${name}`) as 'questions.id'[]

/** A question row as the light form needs it: text, subtype, the liquid family and polarisation. */
export type LightRow = Pick<QuestionRow, 'id' | 'question' | 'description' | 'slug' | 'subtype' | 'polarisation'> &
  Record<string, number | string>

/** A question of a kept walk: its id, and when it opens and closes for answers (ms since the epoch, or null). */
export interface WalkItem {
  id: number
  opensAt: number | null
  closesAt: number | null
}

export interface NextQuestionFilters {
  questionFilters: QuestionListQuery
  exclude: number[]
}

/** Whether a question filter narrows the query (an exclusion list does not). */
function narrowed({ questionFilters }: NextQuestionFilters): boolean {
  return Object.values(questionFilters).some((value) => value !== undefined)
}

/** Keeps a value computed from the data until the data changes (the response cache's memo); by default, none. */
export type Remember = <T>(key: string, build: () => Promise<T>) => Promise<T>
const computeEachTime: Remember = (_key, build) => build()

export function nextQuestionRepository(db: Kysely<Database>, remember: Remember = computeEachTime) {
  /** What the query matches: the listing's filters, narrowed to published questions open for answers now. */
  function matching({ questionFilters, exclude }: NextQuestionFilters, caller: Caller | null) {
    let query = questionsRepository(db)
      .filtered(questionFilters, caller)
      .where('questions.publish', '=', true)
      .where(sql<boolean>`(questions.start_at IS NULL OR questions.start_at <= now())`)
      .where(sql<boolean>`(questions.end_at IS NULL OR questions.end_at > now())`)
    if (exclude.length) query = query.where('questions.id', 'not in', exclude)
    return query
  }

  /**
   * The user's answers, likert and choice, skips included, each table read from its (user_id, question_id) index
   * in question order. The parenthesised ORDER BYs let PostgreSQL merge both with questions walked by id (Merge
   * Append, then a merge join): one sequential read of the answers, however many there are. A plain UNION ALL
   * or NOT EXISTS on the tables gets a sort of all of them instead.
   */
  function answers(userId: number, from: number | null) {
    let likert = db
      .selectFrom('question_votes')
      .select('question_votes.question_id')
      .where('question_votes.user_id', '=', userId)
      .orderBy('question_votes.question_id')
    let choice = db
      .selectFrom('question_choice_votes')
      .select('question_choice_votes.question_id')
      .where('question_choice_votes.user_id', '=', userId)
      .orderBy('question_choice_votes.question_id')
    if (from !== null) {
      likert = likert.where('question_votes.question_id', '>=', from)
      choice = choice.where('question_choice_votes.question_id', '>=', from)
    }
    return sql<{ question_id: number }>`(${likert} union all ${choice})`.as('answered')
  }

  /**
   * Questions the user has not answered: no likert answer or skip, no choice answer or skip. With `from`, the
   * questions from that id on, anti-joined with the answers read in question order from there; otherwise two
   * NOT EXISTS, which PostgreSQL runs as probes of the (question_id, user_id) indexes, cheapest when few
   * questions are looked at (a filter, or a sort first).
   */
  function unanswered<Q extends ReturnType<typeof matching>>(query: Q, userId: number, from: number | null = null): Q {
    if (from !== null) {
      return query
        .where('questions.id', '>=', from)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb.selectFrom(answers(userId, from)).select(sql.lit(1).as('one')).whereRef('answered.question_id', '=', 'questions.id'),
            ),
          ),
        ) as Q
    }
    return query
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('question_votes as qv')
              .select(sql.lit(1).as('one'))
              .whereRef('qv.question_id', '=', 'questions.id')
              .where('qv.user_id', '=', userId),
          ),
        ),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('question_choice_votes as qcv')
              .select(sql.lit(1).as('one'))
              .whereRef('qcv.question_id', '=', 'questions.id')
              .where('qcv.user_id', '=', userId),
          ),
        ),
      ) as Q
  }

  /**
   * count and unanswered in one statement; for anonymous callers every question is unanswered. Without a
   * question filter, one pass: the questions merged with the user's answers, which also finds `first`, the
   * lowest unanswered id. With one, the probes serve better, the matching questions being fewer than the answers.
   */
  function countsQuery(filters: NextQuestionFilters, caller: Caller | null) {
    const all = matching(filters, caller).select((eb) => eb.fn.countAll<string>().as('n'))
    if (!caller) return db.selectFrom(all.as('matching')).select(['matching.n as count', 'matching.n as unanswered'])
    if (!narrowed(filters)) {
      // A question answered in both tables (which the API never lets happen) joins twice: hence the distinct.
      // count(distinct) also keeps the plan serial, where parallel workers would each reread the answers.
      const open = sql<string>`count(*) filter (where answered.question_id is null)`
      return matching(filters, caller)
        .leftJoin(answers(caller.id, null), 'answered.question_id', 'questions.id')
        .select([
          sql<string>`${open} + count(distinct answered.question_id)`.as('count'),
          open.as('unanswered'),
          sql<number | null>`min(questions.id) filter (where answered.question_id is null)`.as('first'),
        ])
    }
    const open = unanswered(matching(filters, caller), caller.id).select((eb) => eb.fn.countAll<string>().as('n'))
    return db.selectNoFrom([all.as('count'), open.as('unanswered')])
  }

  const isQuestionId = (term: OrderTerm) => term.expression.compile(db).sql === '"questions"."id"'

  /** A signed-in walk by id with no question filter: its counts find where the page starts. */
  function walksById(filters: NextQuestionFilters, caller: Caller | null, ordering: OrderTerm[], collectionOrder: number | null) {
    return (
      caller !== null &&
      collectionOrder === null &&
      !narrowed(filters) &&
      ordering.every((term) => term.direction === 'asc' && isQuestionId(term))
    )
  }

  /**
   * The next unanswered questions; `collectionOrder` names a collection whose item order leads; `from`, the
   * lowest unanswered id, when the counts found it.
   */
  function nextQuery(
    filters: NextQuestionFilters,
    caller: Caller | null,
    ordering: OrderTerm[],
    limit: number,
    collectionOrder: number | null,
    from: number | null = null,
  ) {
    const query = caller ? unanswered(matching(filters, caller), caller.id, from) : matching(filters, caller)
    let selected = query.select(LIGHT_COLUMNS)
    if (collectionOrder !== null) {
      selected = selected
        .innerJoin('question_collection_items as item', (join) =>
          join.onRef('item.question_id', '=', 'questions.id').on('item.parent_id', '=', collectionOrder),
        )
        .orderBy('item.order')
        .orderBy('item.id') as never
    }
    for (const term of ordering) selected = selected.orderBy(term.expression, term.direction)
    return selected.limit(limit)
  }

  return {
    countsQuery,
    nextQuery,

    /** Whether an ordering walks by question id, ascending (every term is the id). */
    inIdOrder: (ordering: OrderTerm[]) => ordering.every((term) => term.direction === 'asc' && isQuestionId(term)),

    /**
     * The question set's version (migration 026) and, for a signed-in caller, the questions they answered, likert or
     * choice, skips included: among `among` when given, else all of them. One statement.
     */
    async versionAndAnswered(userId: number | null, among: number[] | null): Promise<{ version: number; answered: Set<number> }> {
      const version = sql<number>`(SELECT version FROM question_set_version)`
      if (userId === null) {
        const { rows } = await sql<{ version: number }>`SELECT ${version} AS version`.execute(db)
        return { version: Number(rows[0].version), answered: new Set() }
      }
      const within = among === null ? sql`` : sql`AND question_id = ANY(${among}::integer[])`
      const { rows } = await sql<{ version: number; answered: number[] }>`
        SELECT ${version} AS version, ARRAY(
          SELECT question_id FROM question_votes WHERE user_id = ${userId} ${within}
          UNION ALL
          SELECT question_id FROM question_choice_votes WHERE user_id = ${userId} ${within}) AS answered`.execute(db)
      return { version: Number(rows[0].version), answered: new Set(rows[0].answered.map(Number)) }
    },

    /** The question set's version (migration 026): one statement. */
    async version(): Promise<number> {
      const { rows } = await sql<{ version: number }>`SELECT version FROM question_set_version`.execute(db)
      return Number(rows[0]!.version)
    },

    /**
     * Every published question the filters match, in the walk's order (the collection's item order, then the
     * ordering's terms, then id), with
     * when each opens and closes, and the question set's version they were read at. One statement.
     */
    async walk(
      questionFilters: QuestionListQuery,
      collectionOrder: number | null,
      ordering: OrderTerm[] = [],
    ): Promise<{ version: number; items: WalkItem[] }> {
      let list = questionsRepository(db).filtered(questionFilters, null).where('questions.publish', '=', true)
      if (collectionOrder !== null) {
        list = list.innerJoin('question_collection_items as item', (join) =>
          join.onRef('item.question_id', '=', 'questions.id').on('item.parent_id', '=', collectionOrder),
        ) as never
      }
      const terms = [
        ...(collectionOrder !== null ? [sql`item."order"`, sql`item.id`] : []),
        ...ordering.map((term) => sql`${term.expression} ${sql.raw(term.direction)}`),
        sql`questions.id`,
      ]
      const position = sql`row_number() OVER (ORDER BY ${sql.join(terms)})`
      const rows = list.select(['questions.id', 'questions.start_at', 'questions.end_at', sql<number>`${position}`.as('position')])
      const { rows: found } = await sql<{ version: number; items: [number, string | null, string | null][] }>`
        SELECT (SELECT version FROM question_set_version) AS version,
          coalesce((SELECT json_agg(json_build_array(w.id, w.start_at, w.end_at) ORDER BY w.position) FROM (${rows}) AS w), '[]') AS items`.execute(
        db,
      )
      const seen = new Set<number>()
      const items: WalkItem[] = []
      for (const [id, start, end] of found[0].items) {
        if (seen.has(id)) continue
        seen.add(id)
        items.push({ id, opensAt: start === null ? null : Date.parse(start), closesAt: end === null ? null : Date.parse(end) })
      }
      return { version: Number(found[0].version), items }
    },

    /** The light columns of these questions, in no order. */
    lightRows(ids: number[]): Promise<LightRow[]> {
      if (ids.length === 0) return Promise.resolve([])
      return db.selectFrom('questions').select(LIGHT_COLUMNS).where('questions.id', 'in', ids).execute() as Promise<unknown> as Promise<
        LightRow[]
      >
    },

    async counts(
      filters: NextQuestionFilters,
      caller: Caller | null,
    ): Promise<{ count: number; unanswered: number; first: number | null }> {
      // A scan of the open questions (about 12 ms on the large seed): kept until the data changes.
      const query = countsQuery(filters, caller)
      const { sql: text, parameters } = query.compile()
      return remember(`next-counts:${text}:${JSON.stringify(parameters)}`, async () => {
        const row = await query.executeTakeFirstOrThrow()
        return { count: Number(row.count), unanswered: Number(row.unanswered), first: 'first' in row ? (row.first as number | null) : null }
      })
    },

    /**
     * The counts and the page. A walk by id starts at the first unanswered question the counts found, rather
     * than walking past the answered ones again (50,000 for a user who answered the first half): counts first,
     * then a page that reads from there. Otherwise both statements run side by side on a pool.
     */
    async countsAndNext(
      filters: NextQuestionFilters,
      caller: Caller | null,
      ordering: OrderTerm[],
      limit: number,
      collectionOrder: number | null,
    ) {
      const next = (from: number | null) =>
        nextQuery(filters, caller, ordering, limit, collectionOrder, from).execute() as Promise<unknown> as Promise<LightRow[]>
      if (!walksById(filters, caller, ordering, collectionOrder)) return Promise.all([this.counts(filters, caller), next(null)])
      const counts = await this.counts(filters, caller)
      return [counts, counts.first === null ? [] : await next(counts.first)] as const
    },
  }
}
