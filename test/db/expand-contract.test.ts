import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Migrator, sql, type Kysely } from 'kysely'
import { migrations } from '../../src/db/migrations/index.ts'
import { commandDatabase } from '../helpers/databases.ts'

/**
 * The upgrade rule (docs/operations.md, Upgrading a running deployment): during a rolling restart the previous
 * release runs on the migrated database, so a migration only adds. For each of the last migrations, what the
 * previous release could see (tables, columns with their type, nullability and default, views, functions with their
 * signature and result, triggers) is read from the catalog before and after it, and anything gone or changed is a
 * violation, unless it is listed below with the reason it is safe.
 */
const CHECKED = 10

/**
 * Migrations that contracted before the rule was written down: an upgrade across one of them stops every process
 * before migrating (docs/operations.md, Upgrading a running deployment). No other may be added here.
 */
const BEFORE_THE_RULE: Record<string, string> = {
  '2026-11-28-043-released-tag-counts':
    "tags' private vote counts moved from triggers and tags.private_votes_count to released counts; the release before reads the column",
  '2026-11-28-044-one-answer-path':
    'the answer calls became one path: the first-answer calls and their helpers went, cast_likert and cast_pick return one more column',
}

type Snapshot = Map<string, string>

async function snapshot<T>(db: Kysely<T>): Promise<Snapshot> {
  const { rows } = await sql<{ key: string; shape: string }>`
    SELECT 'column ' || c.relname || '.' || a.attname AS key,
      format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
        || CASE WHEN d.adbin IS NOT NULL OR a.attgenerated <> '' THEN ' with default' ELSE '' END AS shape
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v') AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT 'function ' || p.oid::regprocedure::text, pg_get_function_result(p.oid)
    FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
    UNION ALL
    SELECT 'trigger ' || t.tgname || ' on ' || c.relname, ''
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal`.execute(db)
  return new Map(rows.map((row) => [row.key, row.shape]))
}

/** What the previous release saw and the migration took away or changed; a new NOT NULL without default too. */
function violations(before: Snapshot, after: Snapshot): string[] {
  const found: string[] = []
  for (const [key, shape] of before) {
    const now = after.get(key)
    if (now === undefined) found.push(`${key} removed`)
    else if (now !== shape && !(key.startsWith('column ') && now === shape.replace(' not null', '') && !shape.includes('with default')))
      found.push(`${key}: ${shape} -> ${now}`)
  }
  for (const [key, shape] of after) {
    if (!before.has(key) && key.startsWith('column ') && shape.includes(' not null') && !shape.includes('with default')) {
      const table = key.slice('column '.length).split('.')[0]
      // A new column of a new table is no one's concern: the previous release never writes that table.
      if ([...before.keys()].some((known) => known.startsWith(`column ${table}.`))) found.push(`${key} added as not null without a default`)
    }
  }
  return found
}

test(
  `the last ${CHECKED} migrations only expand what the release before each used, but those made before the rule`,
  { timeout: 300_000 },
  async () => {
    const names = Object.keys(migrations).sort()
    const checked = names.slice(-CHECKED)
    const database = await commandDatabase('blank')
    try {
      const found = await database.opened(async ({ db }) => {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
        const step = async (name: string) => {
          const result = await migrator.migrateTo(name)
          if (result.error) throw result.error
        }
        await step(names[names.length - CHECKED - 1])
        const all: string[] = []
        let before = await snapshot(db)
        for (const name of checked) {
          await step(name)
          const after = await snapshot(db)
          if (!(name in BEFORE_THE_RULE)) all.push(...violations(before, after).map((violation) => `${name}: ${violation}`))
          before = after
        }
        return all
      })
      assert.deepEqual(found, [], 'a migration took away or changed what the running release uses: expand now, contract in a later release')
    } finally {
      await database.cleanup()
    }
  },
)
