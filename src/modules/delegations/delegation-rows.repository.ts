import { sql, type Selectable } from 'kysely'
import type { Database } from '../../db/database.ts'
import { column, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { Db } from '../../db/types.ts'
import { historyOn } from './delegation-rules.ts'

/** Each delegation table and its subject column: what a row hands to its trustee (a question, a tag). */
interface DelegationSubjects {
  question_delegations: 'question_id'
  tag_delegations: 'tag_id'
}
type DelegationTable = keyof DelegationSubjects
type SubjectColumn = DelegationSubjects[DelegationTable]
type QualifiedSubject = { [T in DelegationTable]: `${T}.${DelegationSubjects[T]}` }[DelegationTable]

/** One kind of delegation as its repository states it. */
export interface DelegationKind<T extends DelegationTable> {
  table: T
  subject: DelegationSubjects[T]
  ordering: OrderingFields
  /** The listing's order when the client asks for none. */
  defaultOrdering: string[]
}

/** A listing's filters, the subject's under one name. */
export interface DelegationFilters {
  history?: string
  subject?: number
  trustee?: number
}

/**
 * What question and tag delegations share: a user's own rows (active, or with history every one), one row, the
 * active row on a subject, and revoking.
 */
export function delegationRows<T extends DelegationTable>(db: Db, kind: DelegationKind<T>) {
  type Row = Selectable<Database[T]>
  // Kysely cannot follow a generic table name through its builders, so the queries name either delegation table
  // (each column checked against both) and a row read is narrowed back to T's. The qualified subject is built
  // from a matching pair, which TypeScript cannot tell from a crossed one.
  const table: DelegationTable = kind.table
  const subject: SubjectColumn = kind.subject
  const qualifiedSubject = `${kind.table}.${kind.subject}` as QualifiedSubject

  const filtered = (userId: number, filters: DelegationFilters) => {
    let query = db.selectFrom(table).where(`${table}.user_id`, '=', userId)
    if (!historyOn(filters.history)) query = query.where(`${table}.revoked_at`, 'is', null)
    if (filters.subject !== undefined) query = query.where(qualifiedSubject, '=', filters.subject)
    if (filters.trustee !== undefined) query = query.where(`${table}.trustee_id`, '=', filters.trustee)
    return query
  }

  return {
    /** A page of the user's own delegations. */
    async page(userId: number, filters: DelegationFilters, list: ListRequest): Promise<RowsPage<Row>> {
      const ordering = orderingTerms(list.ordering, kind.ordering, kind.defaultOrdering, column(`${table}.id`))
      return pageOfRows<Row>(list, filtered(userId, filters), (q) => q.selectAll(table), ordering)
    },

    async find(id: number): Promise<Row | undefined> {
      return (await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined
    },

    /** The user's active delegation on the subject, if any. */
    async active(userId: number, subjectId: number): Promise<Row | undefined> {
      const row = await db
        .selectFrom(table)
        .selectAll()
        .where('user_id', '=', userId)
        .where(subject, '=', subjectId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return row as Row | undefined
    },

    /** Revokes an active row; undefined when it was revoked already. */
    async revoke(id: number): Promise<Row | undefined> {
      const row = await db
        .updateTable(table)
        .set({ revoked_at: sql`now()` })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst()
      return row as Row | undefined
    },
  }
}
