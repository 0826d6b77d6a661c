import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../../db/database.ts'
import { resolvePage, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { Caller } from '../../core/caller.ts'
import { SEARCH_VECTORS } from '../../db/migrations/2026-11-24-013-search-indexes.ts'
import { questionVisibleSql } from '../../access/question-access.ts'

export const SEARCH_KINDS = ['question', 'collection', 'user', 'tag', 'area'] as const
export type SearchKind = (typeof SEARCH_KINDS)[number]

export interface SearchHitRow {
  kind: SearchKind
  id: number
  title: string
  snippet: string
  rank: number
  total: number
}

const vector = (table: keyof typeof SEARCH_VECTORS) => sql.raw(SEARCH_VECTORS[table])

/** A ranked page of hits and their total; counted apart only for `page=last` or past the end. */
export async function searchPage(
  db: Kysely<Database>,
  caller: Caller | null,
  words: string,
  kinds: readonly SearchKind[],
  list: ListRequest,
): Promise<RowsPage<SearchHitRow>> {
  const page = resolvePage(list.page, list.page.last ? await searchCount(db, caller, words, kinds) : 0)
  const rows = await hits(db, caller, words, kinds, page.size, page.offset)
  const count = rows.length ? Number(rows[0].total) : page.offset > 0 ? await searchCount(db, caller, words, kinds) : 0
  return { page, count, rows }
}

/**
 * One ranked page of hits across every kind asked for, and their total, in one statement. Each branch reads
 * through its table's GIN index; ts_rank weighs a title (A) above a description (B). Ties go by kind, then id.
 */
async function hits(
  db: Kysely<Database>,
  caller: Caller | null,
  words: string,
  kinds: readonly SearchKind[],
  limit: number,
  offset: number,
): Promise<SearchHitRow[]> {
  const english = sql`to_tsquery('english', ${words})`
  const simple = sql`to_tsquery('simple', ${words})`
  const branches: Record<SearchKind, RawBuilder<unknown>> = {
    question: sql`SELECT 'question'::text AS kind, questions.id, questions.question AS title, questions.description AS snippet,
        ts_rank(questions.search_vector, ${english}) AS rank
      FROM questions WHERE questions.search_vector @@ ${english} AND ${questionVisibleSql(caller)}`,
    collection: sql`SELECT 'collection'::text AS kind, c.id, c.name AS title, coalesce(c."desc", '') AS snippet,
        ts_rank(${vector('question_collections')}, ${english}) AS rank
      FROM question_collections c WHERE ${vector('question_collections')} @@ ${english}`,
    user: sql`SELECT 'user'::text AS kind, u.id, coalesce(nullif(btrim(u.first_name || ' ' || u.last_name), ''), u.username) AS title,
        u.bio AS snippet, greatest(ts_rank(${vector('users')}, ${simple}), ts_rank(${vector('users')}, ${english})) AS rank
      FROM users u WHERE (${vector('users')} @@ ${simple} OR ${vector('users')} @@ ${english}) AND u.is_active AND NOT u.is_deleted`,
    tag: sql`SELECT 'tag'::text AS kind, t.id, t.text AS title, ''::text AS snippet, ts_rank(${vector('tags')}, ${english}) AS rank FROM tags t WHERE ${vector('tags')} @@ ${english}`,
    area: sql`SELECT 'area'::text AS kind, a.id, a.name AS title, coalesce(a.type_description, a.m_type) AS snippet,
        ts_rank(${vector('areas')}, ${simple}) AS rank
      FROM areas a WHERE ${vector('areas')} @@ ${simple}`,
  }
  const union = sql.join(
    kinds.map((kind) => branches[kind]),
    sql` UNION ALL `,
  )
  const { rows } = await sql<SearchHitRow>`
    SELECT hits.*, count(*) OVER () AS total FROM (${union}) hits
    ORDER BY hits.rank DESC, hits.kind, hits.id LIMIT ${limit} OFFSET ${offset}`.execute(db)
  return rows
}

/** How many hits in all, for a page past the end (which carries no row to count them). */
async function searchCount(db: Kysely<Database>, caller: Caller | null, words: string, kinds: readonly SearchKind[]): Promise<number> {
  const rows = await hits(db, caller, words, kinds, 1, 0)
  return rows.length ? Number(rows[0].total) : 0
}
