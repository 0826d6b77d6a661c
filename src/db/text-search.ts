import { sql, type RawBuilder } from 'kysely'

/** ILIKE treats % and _ as wildcards; a search term means the literal text. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * DRF's SearchFilter as one condition: the search is split on whitespace and commas, and every term must match
 * (case-insensitively, literally) one of the columns. Null when the search holds no term.
 */
export function matchingEveryTerm(search: string, columns: string[]): RawBuilder<boolean> | null {
  const terms = search.split(/[\s,]+/).filter(Boolean)
  if (terms.length === 0) return null
  const termMatches = terms.map((term) => {
    const pattern = `%${escapeLike(term)}%`
    return sql`(${sql.join(
      columns.map((column) => sql`${sql.ref(column)} ilike ${pattern}`),
      sql` or `,
    )})`
  })
  return sql<boolean>`(${sql.join(termMatches, sql` and `)})`
}
