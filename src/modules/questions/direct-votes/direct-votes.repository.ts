import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely'
import type { Database } from '../../../db/database.ts'
import { untyped, type UntypedTables } from '../../../db/types.ts'
import type { Caller } from '../../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import { questionVisibleSql } from '../../../access/question-access.ts'
import { directAfter, familyCounts, familyFromRow } from '../../../engines/statistics/tally.ts'
import type { DirectVoteListQuery } from './direct-votes.schemas.ts'

/** What is rated: links of questions or connections between questions, each vote table beside its target. */
export interface DirectVoteKind {
  resource: 'question_link_votes' | 'question_question_connection_votes'
  target: 'question_links' | 'question_question_connections'
  key: 'link_id' | 'connection_id'
  /** Ids of the targets the caller may see (those whose questions are visible). */
  visibleTargets: (caller: Caller | null) => RawBuilder<unknown>
}

export const LINK_VOTES: DirectVoteKind = {
  resource: 'question_link_votes',
  target: 'question_links',
  key: 'link_id',
  visibleTargets: (caller) =>
    sql`SELECT question_links.id FROM question_links JOIN questions ON questions.id = question_links.question_id WHERE ${questionVisibleSql(caller)}`,
}

export const CONNECTION_VOTES: DirectVoteKind = {
  resource: 'question_question_connection_votes',
  target: 'question_question_connections',
  key: 'connection_id',
  visibleTargets: (caller) => sql`SELECT c.id FROM question_question_connections c
    JOIN questions qf ON qf.id = c.from_question_id JOIN questions qt ON qt.id = c.to_question_id
    WHERE ${questionVisibleSql(caller, 'qf')} AND ${questionVisibleSql(caller, 'qt')}`,
}

export interface DirectVoteRow {
  id: number
  object_id: number
  value: number
  user_id: number
  created_at: Date
  modified_at: Date
}

const directVoteOrdering = (kind: DirectVoteKind): OrderingFields =>
  orderingFieldsOf(['id', 'value', 'created_at', 'modified_at'], kind.resource)

export function directVotesRepository(db: Kysely<Database>, kind: DirectVoteKind) {
  // The two vote tables differ only in their names, so the SQL is written once against either.
  const anyDb = untyped(db)
  const table = kind.resource
  return {
    filtered(filters: DirectVoteListQuery, caller: Caller | null) {
      let query = anyDb.selectFrom(table).where(sql<boolean>`${sql.ref(`${table}.${kind.key}`)} IN (${kind.visibleTargets(caller)})`)
      if (filters.object_id !== undefined) query = query.where(`${table}.${kind.key}`, '=', filters.object_id)
      if (filters.user !== undefined) query = query.where(`${table}.user_id`, '=', filters.user)
      if (filters.id !== undefined) query = query.where(`${table}.id`, '=', filters.id)
      return query
    },

    selectVote: <TB extends string, O>(query: SelectQueryBuilder<UntypedTables, TB, O>) =>
      query.select([
        `${table}.id`,
        `${table}.${kind.key} as object_id`,
        `${table}.value`,
        `${table}.user_id`,
        `${table}.created_at`,
        `${table}.modified_at`,
      ]),

    async page(filters: DirectVoteListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<DirectVoteRow>> {
      const ordering = orderingTerms(list.ordering, directVoteOrdering(kind), ['id'], column(`${table}.id`), (field) =>
        field === 'object_id' ? column(`${table}.${kind.key}`) : field === 'user' ? column(`${table}.user_id`) : null,
      )
      return pageOfRows<DirectVoteRow>(list, this.filtered(filters, caller), this.selectVote, ordering)
    },

    async find(id: number, caller: Caller | null): Promise<DirectVoteRow | undefined> {
      return (await this.selectVote(this.filtered({ id }, caller)).executeTakeFirst()) as DirectVoteRow | undefined
    },

    async targetVisible(targetId: number, caller: Caller | null): Promise<boolean> {
      const row = await sql`SELECT 1 AS found WHERE ${targetId} IN (${kind.visibleTargets(caller)})`.execute(db)
      return row.rows.length > 0
    },

    /**
     * The caller's vote on the target, created or replaced, with the target's direct family moved by the
     * difference in the same transaction. The target row is locked first, so votes on it apply one at a time.
     */
    async cast(userId: number, targetId: number, value: number): Promise<{ row: DirectVoteRow; created: boolean } | undefined> {
      return db.transaction().execute(async (trx) => {
        const t = untyped(trx)
        const target = await t.selectFrom(kind.target).selectAll().where('id', '=', targetId).forNoKeyUpdate().executeTakeFirst()
        if (!target) return undefined
        const previous = await t
          .selectFrom(table)
          .select(['id', 'value'])
          .where('user_id', '=', userId)
          .where(kind.key, '=', targetId)
          .executeTakeFirst()
        const saved = previous
          ? await t
              .updateTable(table)
              .set({ value, modified_at: sql`now()` })
              .where('id', '=', previous.id)
              .returning('id')
              .executeTakeFirstOrThrow()
          : await t
              .insertInto(table)
              .values({ user_id: userId, [kind.key]: targetId, value })
              .returning('id')
              .executeTakeFirstOrThrow()
        await t
          .updateTable(kind.target)
          .set(directColumnsAfter(target, previous ? (previous.value as number) : null, value))
          .where('id', '=', targetId)
          .execute()
        const row = await this.selectVote(t.selectFrom(table).where(`${table}.id`, '=', saved.id)).executeTakeFirstOrThrow()
        return { row: row as DirectVoteRow, created: !previous }
      })
    },

    /** Removes a vote and takes it out of its target's figures. */
    async withdraw(voteId: number): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const t = untyped(trx)
        const named = await t.selectFrom(table).select(kind.key).where('id', '=', voteId).executeTakeFirst()
        if (!named) return false
        const target = await t.selectFrom(kind.target).selectAll().where('id', '=', named[kind.key]).forNoKeyUpdate().executeTakeFirst()
        const vote = await t.deleteFrom(table).where('id', '=', voteId).returning('value').executeTakeFirst()
        if (!target || !vote) return false
        await t
          .updateTable(kind.target)
          .set(directColumnsAfter(target, vote.value as number, null))
          .where('id', '=', target.id)
          .execute()
        return true
      })
    },
  }
}

/** The target's direct counts after one rating is replaced, by the arithmetic every vote uses. */
function directColumnsAfter(target: Record<string, unknown>, removed: number | null, added: number | null): Record<string, number> {
  const family = directAfter(
    familyFromRow(target, 'direct'),
    removed === null ? null : { value: removed },
    added === null ? null : { value: added },
  )
  return familyCounts('direct', family)
}
