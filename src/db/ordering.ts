import { sql, type RawBuilder } from 'kysely'

/**
 * What a resource lets clients sort by: API field name -> SQL expression. The client's text is only
 * ever used to look a name up here, so it never reaches SQL.
 */
export type OrderingFields = Record<string, RawBuilder<unknown>>

export interface OrderTerm {
  expression: RawBuilder<unknown>
  direction: 'asc' | 'desc'
}

/**
 * DRF OrderingFilter: comma-separated names, `-` for descending, unknown names dropped, and the
 * resource's default when nothing valid remains. The id tie-break keeps pages disjoint.
 */
export function orderingTerms(
  raw: unknown,
  fields: OrderingFields,
  fallback: string[],
  tieBreak: RawBuilder<unknown>,
  dynamic?: (name: string) => RawBuilder<unknown> | null,
): OrderTerm[] {
  const requested =
    typeof raw === 'string'
      ? raw
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : []
  const resolve = (names: string[]) => {
    const terms: OrderTerm[] = []
    for (const name of names) {
      const descending = name.startsWith('-')
      const key = descending ? name.slice(1) : name
      const expression = Object.hasOwn(fields, key) ? fields[key] : (dynamic?.(key) ?? null)
      if (expression) terms.push({ expression, direction: descending ? 'desc' : 'asc' })
    }
    return terms
  }
  let terms = resolve(requested)
  if (terms.length === 0) terms = resolve(fallback)
  terms.push({ expression: tieBreak, direction: terms.at(-1)?.direction ?? 'asc' })
  return terms
}

/** A column of the listing's main table, by name. */
export const column = (name: string) => sql.ref(name) as unknown as RawBuilder<unknown>

export function orderingFieldsOf(names: string[], table?: string): OrderingFields {
  const fields: OrderingFields = {}
  for (const name of names) fields[name] = column(table ? `${table}.${name}` : name)
  return fields
}
