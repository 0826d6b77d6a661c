import { sql, type Kysely } from 'kysely'
import type { Caller } from '../../core/caller.ts'
import type { Database } from '../../db/database.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { redactSecrets } from '../../core/redact.ts'

/** The vote tables whose private rows staff may read: answers (likert and choice) and tag votes. */
export type AuditedVotes = 'question' | 'choice' | 'tag'

/** What the log needs of a vote a response shows. */
export interface VoteShown {
  id: number
  user_id: number
  private: boolean
}

export interface PrivateReadRow {
  id: string | number
  staff_id: number
  read_at: Date
  method: string
  path: string
  question_vote_ids: number[]
  choice_vote_ids: number[]
  authors: number[]
}

/** The read being logged: who asked, and the request line. */
export interface AuditedRequest {
  caller: Caller | null
  method: string
  url: string
}

const ORDERING = { read_at: column('private_answer_reads.read_at'), id: column('private_answer_reads.id') }

/**
 * Writes one row when a staff caller's response shows private votes of other people: who, when, the request,
 * which votes and whose. One INSERT per request whatever the page size; nothing when only public votes (or the
 * caller's own) are shown. Awaited before the response leaves: a read that cannot be logged is not served.
 */
export async function recordPrivateReads(
  db: Kysely<Database>,
  read: AuditedRequest,
  kind: AuditedVotes,
  shown: readonly VoteShown[],
): Promise<void> {
  const caller = read.caller
  if (!caller?.isStaff) return
  const others = shown.filter((vote) => vote.private && vote.user_id !== caller.id)
  if (others.length === 0) return
  const ids = others.map((vote) => vote.id)
  const authors = [...new Set(others.map((vote) => vote.user_id))].sort((a, b) => a - b)
  // An array literal, cast: read the same by both database drivers.
  const intArray = (values: number[]) => sql<number[]>`cast(${`{${values.join(',')}}`} as integer[])`
  await db
    .insertInto('private_answer_reads')
    .values({
      staff_id: caller.id,
      method: read.method,
      // The URL read, with any key or token in its query string blanked.
      path: redactSecrets(read.url),
      question_vote_ids: intArray(kind === 'question' ? ids : []),
      choice_vote_ids: intArray(kind === 'choice' ? ids : []),
      authors: intArray(authors),
    })
    .execute()
}

/** A page of the log, newest first unless ordered otherwise. */
export async function privateReadsPage(
  db: Kysely<Database>,
  filters: { staff?: number; author?: number },
  list: ListRequest,
): Promise<RowsPage<PrivateReadRow>> {
  const ordering = orderingTerms(list.ordering, ORDERING, ['-read_at', '-id'], column('private_answer_reads.id'))
  return pageOfRows<PrivateReadRow>(list, privateReadsFiltered(db, filters), (q) => q.selectAll(), ordering)
}

/** The log, filtered by staff member and by author; selects nothing yet. */
function privateReadsFiltered(db: Kysely<Database>, filters: { staff?: number; author?: number }) {
  let query = db.selectFrom('private_answer_reads')
  if (filters.staff !== undefined) query = query.where('private_answer_reads.staff_id', '=', filters.staff)
  if (filters.author !== undefined) {
    const author = filters.author
    query = query.where(sql<boolean>`private_answer_reads.authors @> ARRAY[${author}::integer]`)
  }
  return query
}
