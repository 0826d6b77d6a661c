/**
 * Which statements are plain reads, for the read router (src/db/read-routing.ts). The database's functions say
 * whether they may write by their volatility: every VOLATILE function outside PostgreSQL's schemas is taken to
 * write, and a statement calling one goes to the primary. VOLATILE is PostgreSQL's default, so a function nobody
 * marked is routed as a write, which costs a replica read where a missed write would cost its author's
 * read-your-writes. A STABLE or IMMUTABLE function cannot write itself (PostgreSQL refuses it);
 * test/scale/writing-functions.test.ts checks that none calls one that does. docs/operations.md, Which functions
 * write.
 */

const READ = /^\s*(select|with)\b/i
/**
 * PostgreSQL's own ways for a SELECT to write, lock, take a sequence value, send a notice or set session state. Its
 * volatile functions are not all taken, as the service's are: `random()` and `clock_timestamp()` read.
 */
const BUILT_IN_WRITES =
  /\b(insert|update|delete|merge|into|share|nextval|setval|currval|lastval|pg_advisory\w*|pg_try_advisory\w*|set_config|pg_notify|txid_current\w*|pg_current_\w+|lo_\w+|pg_cancel_backend|pg_terminate_backend|dblink\w*)\b/i

/** The functions of the database (outside PostgreSQL's own schemas) that may write: the VOLATILE ones. */
const WRITING_FUNCTIONS_QUERY = `
  SELECT DISTINCT p.proname AS name
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE p.provolatile = 'v' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
  ORDER BY 1`

export class StatementKinds {
  /** A call of one of the writing functions, its name quoted or not, schema-qualified or not. */
  readonly #writingCall: RegExp | null

  constructor(readonly writingFunctions: readonly string[]) {
    const names = writingFunctions.map((name) => name.replace(/[^\w]/g, (c) => `\\${c}`))
    this.#writingCall = names.length > 0 ? new RegExp(`(?<![\\w$])"?(?:${names.join('|')})"?\\s*\\(`, 'i') : null
  }

  /** Whether the statement only reads: a SELECT or WITH calling nothing that writes. When unsure: not. */
  isPlainRead(text: string): boolean {
    return READ.test(text) && !BUILT_IN_WRITES.test(text) && !(this.#writingCall?.test(text) ?? false)
  }
}

export interface CatalogueReader {
  query<Row>(text: string): Promise<{ rows: Row[] }>
}

export async function loadStatementKinds(database: CatalogueReader): Promise<StatementKinds> {
  const { rows } = await database.query<{ name: string }>(WRITING_FUNCTIONS_QUERY)
  return new StatementKinds(rows.map((row) => row.name))
}
