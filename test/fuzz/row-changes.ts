import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'

/** One row a statement inserted, deleted or really changed (an UPDATE that changes nothing is not recorded). */
export interface RowChange {
  table: string
  operation: 'INSERT' | 'UPDATE' | 'DELETE'
  /** For an UPDATE, the columns whose value changed. */
  columns: string[]
}

/**
 * Writes a rejected request may make, because they are bookkeeping of the attempt itself rather than an
 * effect of the request. Anything else a 4xx leaves behind is a defect.
 */
export const EXEMPT_BOOKKEEPING: { table: string; operation: RowChange['operation']; columns?: string[]; why: string }[] = [
  {
    table: 'auth_tokens',
    operation: 'UPDATE',
    columns: ['last_used_at'],
    why: 'authentication stamps a token’s last use before the route decides anything',
  },
  { table: 'app_keys', operation: 'UPDATE', columns: ['last_used_at'], why: 'the same for application keys' },
  {
    table: 'one_time_codes',
    operation: 'UPDATE',
    columns: ['attempts'],
    why: 'a wrong code spends an attempt: that is the limit on guessing',
  },
  {
    table: 'service_secrets',
    operation: 'INSERT',
    why: 'the signing key is created once, by the first request that needs it, whatever its outcome',
  },
]

export function isExempt(change: RowChange): boolean {
  return EXEMPT_BOOKKEEPING.some(
    (rule) =>
      rule.table === change.table &&
      rule.operation === change.operation &&
      (!rule.columns || change.columns.every((column) => rule.columns!.includes(column))),
  )
}

const LOG = 'fuzz_row_changes'

/**
 * Counts changed rows with a trigger on every table of this (throw-away) database, so a case can tell
 * exactly what it changed with one read. Works on PostgreSQL and on PGlite alike (plpgsql triggers).
 */
export async function recordRowChanges(db: Kysely<Database>) {
  await sql`CREATE TABLE ${sql.raw(LOG)} (id bigserial PRIMARY KEY, table_name text NOT NULL, operation text NOT NULL, columns text[] NOT NULL DEFAULT '{}')`.execute(
    db,
  )
  await sql`
    CREATE FUNCTION fuzz_record_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        INSERT INTO ${sql.raw(LOG)} (table_name, operation, columns)
        SELECT TG_TABLE_NAME, TG_OP, coalesce(array_agg(n.key ORDER BY n.key), '{}')
        FROM jsonb_each(to_jsonb(NEW)) n
        WHERE n.value IS DISTINCT FROM to_jsonb(OLD) -> n.key;
      ELSE
        INSERT INTO ${sql.raw(LOG)} (table_name, operation) VALUES (TG_TABLE_NAME, TG_OP);
      END IF;
      RETURN NULL;
    END $$`.execute(db)
  // Plain and partitioned tables, not partitions (a trigger on the parent covers them).
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> ${LOG}`.execute(db)
  for (const { name } of rows) {
    const table = sql.id(name)
    await sql`CREATE TRIGGER fuzz_changes AFTER INSERT OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION fuzz_record_change()`.execute(db)
    await sql`CREATE TRIGGER fuzz_updates AFTER UPDATE ON ${table} FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION fuzz_record_change()`.execute(
      db,
    )
  }
  let seen = 0
  return {
    tables: rows.length,
    /** Every change since the previous call. */
    async since(): Promise<RowChange[]> {
      const { rows: changes } = await sql<{ id: string; table_name: string; operation: RowChange['operation']; columns: string[] }>`
        SELECT id, table_name, operation, columns FROM ${sql.raw(LOG)} WHERE id > ${seen} ORDER BY id`.execute(db)
      if (changes.length) seen = Number(changes[changes.length - 1].id)
      return changes.map((change) => ({ table: change.table_name, operation: change.operation, columns: change.columns }))
    },
  }
}

export function describeChanges(changes: RowChange[]): string {
  const counts = new Map<string, number>()
  for (const change of changes) {
    const key = `${change.operation} ${change.table}${change.columns.length ? `(${change.columns.join(', ')})` : ''}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return [...counts].map(([key, count]) => `${count}× ${key}`).join('; ')
}
