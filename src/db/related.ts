import { sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely'
import type { Database } from './database.ts'

type Table = keyof Database & string
type ColumnOf<T extends Table> = keyof Database[T] & string
/** Any column of any table, as `table.column`: the outer row a related row points at. */
type ColumnRef = { [T in Table]: `${T}.${ColumnOf<T>}` }[Table]

/**
 * `EXISTS` a row of a related table (`'question_tags as qt'`) that points at the outer row (`link`: its own column,
 * then the outer column) and holds every value of `match` (undefined values are left out). A semi-join: the outer
 * rows are never repeated, whatever the number of related rows, so a listing's count and page stay one statement each.
 */
export function whereRelated<T extends Table>(
  from: `${T} as ${string}`,
  link: [ColumnOf<T>, ColumnRef],
  match: { [C in keyof Selectable<Database[T]>]?: Selectable<Database[T]>[C] },
): RawBuilder<SqlBool> {
  const [table, alias] = from.split(' as ') as [T, string]
  const column = (name: string) => sql.ref(`${alias}.${name}`)
  const conditions = [sql`${column(link[0])} = ${sql.ref(link[1])}`]
  for (const [name, value] of Object.entries(match)) if (value !== undefined) conditions.push(sql`${column(name)} = ${value}`)
  return sql<SqlBool>`exists (select ${column('id')} from ${sql.table(table)} as ${sql.id(alias)} where ${sql.join(conditions, sql` and `)})`
}
