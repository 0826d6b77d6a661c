import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/database.ts'

/**
 * Column kinds of the bulk insert. Each column travels as one array parameter and is spread out by
 * `unnest`, so a chunk of tens of thousands of rows is a single statement on PostgreSQL and PGlite.
 * - `time`: seconds since the Unix epoch (a number), stored as timestamptz;
 * - `date`: 'YYYY-MM-DD' text; `jsonb`: JSON text; `intarray`: a PostgreSQL array literal such as '{1,2}'.
 */
export type ColumnKind = 'int' | 'text' | 'bool' | 'float' | 'time' | 'date' | 'jsonb' | 'intarray'

export type TableSpec = Readonly<Record<string, ColumnKind>>

type Values = ArrayLike<unknown>

const PARAM_TYPE: Record<ColumnKind, string> = {
  int: 'int4[]',
  text: 'text[]',
  bool: 'bool[]',
  float: 'float8[]',
  time: 'float8[]',
  date: 'text[]',
  jsonb: 'text[]',
  intarray: 'text[]',
}

function selectExpression(name: string, kind: ColumnKind): string {
  const ref = `u."${name}"`
  switch (kind) {
    case 'time':
      return `to_timestamp(${ref})`
    case 'date':
      return `${ref}::date`
    case 'jsonb':
      return `${ref}::jsonb`
    case 'intarray':
      return `${ref}::int[]`
    default:
      return ref
  }
}

export interface InsertOptions {
  chunkSize?: number
  /** Called after each chunk with the number of rows written so far. */
  onChunk?: (done: number) => void
  /** Called as the keys and indexes of a large load are put back (see `withoutKeysAndIndexes`). */
  onRebuild?: (done: number, total: number) => void
  /** Keys and indexes a large load keeps up: those the table's triggers look rows up by while it loads. */
  keep?: readonly string[]
  /**
   * Tables the table's triggers read, analyzed after each chunk: the triggers' plans are kept for the transaction
   * and would otherwise stay those made while the tables were empty (sequential scans of what has since grown).
   */
  analyze?: readonly string[]
}

/** Builds the column arrays of rows [start, end); lets large tables be produced one chunk at a time. */
export type ChunkBuilder = (start: number, end: number) => Readonly<Record<string, readonly unknown[]>>

/** From this many rows on, a table is loaded without its keys and indexes (see `withoutKeysAndIndexes`). */
const BULK_LOAD_ROWS = 50_000

/**
 * Inserts `count` rows, asking `build` for each chunk's columns. Large loads inside a transaction
 * take the table's keys and indexes off first and put them back at the end.
 */
export async function insertChunks(
  db: Kysely<Database>,
  table: string,
  spec: TableSpec,
  count: number,
  build: ChunkBuilder,
  options: InsertOptions = {},
): Promise<void> {
  const names = Object.keys(spec)
  const columnList = names.map((n) => `"${n}"`).join(', ')
  const selectList = names.map((n) => selectExpression(n, spec[n])).join(', ')
  const chunkSize = options.chunkSize ?? 25_000
  const load = async () => {
    for (let start = 0; start < count; start += chunkSize) {
      const end = Math.min(count, start + chunkSize)
      const columns = build(start, end)
      const params = names.map((n) => {
        const values = columns[n]
        if (!values || values.length !== end - start) {
          throw new Error(`${table}.${n}: expected ${end - start} values, got ${values?.length ?? 'none'}`)
        }
        return sql`${values}::${sql.raw(PARAM_TYPE[spec[n]])}`
      })
      await sql`INSERT INTO ${sql.raw(`"${table}"`)} (${sql.raw(columnList)})
        SELECT ${sql.raw(selectList)} FROM unnest(${sql.join(params)}) AS u(${sql.raw(columnList)})`.execute(db)
      if (options.analyze?.length) await sql.raw(`ANALYZE ${options.analyze.join(', ')}`).execute(db)
      options.onChunk?.(end)
    }
  }
  if (count >= BULK_LOAD_ROWS && db.isTransaction) await withoutKeysAndIndexes(db, table, load, options.onRebuild, options.keep)
  else await load()
}

/** Inserts `count` rows given column by column (plain or typed arrays, all of the same length). */
export async function insertColumns(
  db: Kysely<Database>,
  table: string,
  spec: TableSpec,
  columns: Readonly<Record<string, Values>>,
  count: number,
  options: InsertOptions = {},
): Promise<void> {
  const slice = (start: number, end: number) => {
    const out: Record<string, unknown[]> = {}
    for (const name of Object.keys(spec)) {
      const values = columns[name]
      if (!values || values.length !== count) {
        throw new Error(`${table}.${name}: expected ${count} values, got ${values?.length ?? 'none'}`)
      }
      out[name] = Array.prototype.slice.call(values, start, end)
    }
    return out
  }
  await insertChunks(db, table, spec, count, slice, options)
}

/** Inserts row objects: each row has every column of the spec (null allowed where the column is nullable). */
export async function insertRows(
  db: Kysely<Database>,
  table: string,
  spec: TableSpec,
  rows: readonly Readonly<Record<string, unknown>>[],
  options: InsertOptions = {},
): Promise<void> {
  const columns: Record<string, unknown[]> = {}
  for (const name of Object.keys(spec)) {
    const values = new Array<unknown>(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const value = rows[i][name]
      if (value === undefined) throw new Error(`${table}.${name}: missing in row ${i}`)
      values[i] = value
    }
    columns[name] = values
  }
  await insertColumns(db, table, spec, columns, rows.length, options)
}

/** Moves each identity sequence past the explicit ids the seed wrote. */
export async function syncIdentitySequences(db: Kysely<Database>, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false)
      FROM ${sql.raw(`"${table}"`)}`.execute(db)
  }
}

interface Definition {
  table: string
  name: string
  sql: string
}

/**
 * Loads a large table without its keys and indexes, then puts them back exactly as they were
 * (same names and definitions): building an index once from sorted rows and checking each foreign
 * key with one join is much faster than maintaining them row by row. Foreign keys of other tables
 * that point at this one are taken off and put back too. Call it inside a transaction. `keep`: keys and indexes left in
 * place, for triggers that probe the table as it loads (without them each probe is a scan of the rows loaded so far).
 */
export async function withoutKeysAndIndexes<T>(
  db: Kysely<Database>,
  table: string,
  load: () => Promise<T>,
  onRebuild?: (done: number, total: number) => void,
  keep: readonly string[] = [],
): Promise<T> {
  const { rows: constraints } = await sql<{ table: string; name: string; def: string; kind: string; own: boolean }>`
    SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS def,
      c.contype AS kind, c.conrelid = ${table}::regclass AS own
    FROM pg_constraint c
    WHERE (c.conrelid = ${table}::regclass AND c.contype IN ('p', 'u', 'f'))
       OR (c.confrelid = ${table}::regclass AND c.contype = 'f' AND c.conrelid <> ${table}::regclass)
    ORDER BY c.conname`.execute(db)
  const { rows: indexes } = await sql<{ name: string; def: string }>`
    SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
    FROM pg_index i
    WHERE i.indrelid = ${table}::regclass AND NOT EXISTS (
      SELECT 1 FROM pg_constraint c WHERE c.conrelid = i.indrelid AND c.conindid = i.indexrelid AND c.contype IN ('p', 'u', 'x'))
    ORDER BY 1`.execute(db)

  const kept = new Set(keep)
  const keys: Definition[] = constraints
    .filter((c) => c.kind !== 'f' && !kept.has(c.name))
    .map((c) => ({ table: c.table, name: c.name, sql: c.def }))
  const foreign: Definition[] = constraints
    .filter((c) => c.kind === 'f')
    .sort((a, b) => Number(b.own) - Number(a.own))
    .map((c) => ({ table: c.table, name: c.name, sql: c.def }))
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

  // A table cannot be altered while deferred trigger events on it wait for the commit (migration 026's bump of the
  // question set's version): they run at once for the rest of the transaction.
  await sql`SET CONSTRAINTS ALL IMMEDIATE`.execute(db)
  for (const fk of foreign) await sql.raw(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${quote(fk.name)}`).execute(db)
  for (const key of keys) await sql.raw(`ALTER TABLE ${key.table} DROP CONSTRAINT ${quote(key.name)}`).execute(db)
  const dropped = indexes.filter((index) => !kept.has(index.name))
  for (const index of dropped) await sql.raw(`DROP INDEX ${index.name}`).execute(db)

  const result = await load()

  const rebuild = [
    ...keys.map((key) => `ALTER TABLE ${key.table} ADD CONSTRAINT ${quote(key.name)} ${key.sql}`),
    ...dropped.map((index) => index.def),
    ...foreign.map((fk) => `ALTER TABLE ${fk.table} ADD CONSTRAINT ${quote(fk.name)} ${fk.sql}`),
  ]
  for (let i = 0; i < rebuild.length; i++) {
    await sql.raw(rebuild[i]).execute(db)
    onRebuild?.(i + 1, rebuild.length)
  }
  return result
}

/** Runs `load` with the given triggers off (inside the caller's transaction: nobody else sees them off). */
export async function withTriggersDisabled<T>(
  db: Kysely<Database>,
  triggers: readonly { table: string; trigger: string }[],
  load: () => Promise<T>,
): Promise<T> {
  for (const { table, trigger } of triggers) await sql.raw(`ALTER TABLE "${table}" DISABLE TRIGGER "${trigger}"`).execute(db)
  const result = await load()
  for (const { table, trigger } of triggers) await sql.raw(`ALTER TABLE "${table}" ENABLE TRIGGER "${trigger}"`).execute(db)
  return result
}
