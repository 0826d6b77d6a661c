import { sql, type Kysely } from 'kysely'
import { isDatabaseUnavailable } from '../../db/availability.ts'
import type { Database } from '../../db/database.ts'
import { migrations } from '../../db/migrations/index.ts'

/** The newest migration this code needs: names sort in the order they apply. */
const NEEDED = Object.keys(migrations).sort().at(-1)!

export type Readiness = { ready: true; migration: string } | { ready: false; detail: string; error?: unknown }

/**
 * One statement: whether the code's newest migration is applied. A database migrated further (a newer release
 * rolling out) still serves this one.
 */
export async function readiness(db: Kysely<Database>): Promise<Readiness> {
  try {
    const { rows } = await sql<{ newest: string | null; current: boolean | null }>`
      select max(name) as newest, bool_or(name = ${NEEDED}) as current from kysely_migration`.execute(db)
    const { newest, current } = rows[0] ?? { newest: null, current: null }
    if (current) return { ready: true, migration: newest! }
    return { ready: false, detail: `Database migrations are not current: applied ${newest ?? 'none'}, needed ${NEEDED}.` }
  } catch (error) {
    if (isDatabaseUnavailable(error)) return { ready: false, detail: 'The database is not reachable.', error }
    if ((error as { code?: string }).code === '42P01')
      return { ready: false, detail: `Database migrations are not current: applied none, needed ${NEEDED}.` }
    return { ready: false, detail: 'The database does not answer as expected.', error }
  }
}
