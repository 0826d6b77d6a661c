import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * The stored figures as generated columns over the stored counts: one definition of every float a row carries (the
 * likert_* functions of migration 022), computed by the database whoever writes the counts. Writers store counts
 * only, so an answer may move them by deltas without reading them first, and a recomputation that puts the same
 * counts back gives the same floats to the bit, on either database.
 */
const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']
const DERIVED = ['vote_count', 'sum', 'value', 'heat', 'consensus']

const TABLES: { table: string; liquid: boolean }[] = [
  { table: 'questions', liquid: true },
  { table: 'question_choices', liquid: true },
  { table: 'question_tags', liquid: false },
  { table: 'question_links', liquid: false },
  { table: 'question_question_connections', liquid: false },
]

const counts = (prefix: string) => LEVELS.map((level) => `${prefix}_${level}::double precision`).join(', ')

function generated(prefix: string): string[] {
  const c = counts(prefix)
  return [
    `ADD COLUMN ${prefix}_vote_count integer NOT NULL GENERATED ALWAYS AS (${LEVELS.map((l) => `${prefix}_${l}`).join(' + ')}) STORED`,
    `ADD COLUMN ${prefix}_sum double precision NOT NULL GENERATED ALWAYS AS (likert_sum(${c})) STORED`,
    `ADD COLUMN ${prefix}_value double precision NOT NULL GENERATED ALWAYS AS (likert_value(${c})) STORED`,
    `ADD COLUMN ${prefix}_heat double precision NOT NULL GENERATED ALWAYS AS (likert_heat(${c})) STORED`,
    `ADD COLUMN ${prefix}_consensus double precision NOT NULL GENERATED ALWAYS AS (likert_consensus(${c})) STORED`,
  ]
}

function alter({ table, liquid }: { table: string; liquid: boolean }): string {
  const families = liquid ? ['direct', 'liquid'] : ['direct']
  const dropped = families.flatMap((prefix) => DERIVED.map((field) => `DROP COLUMN ${prefix}_${field}`))
  const added = families.flatMap(generated)
  if (liquid) {
    dropped.push('DROP COLUMN polarisation')
    added.push(`ADD COLUMN polarisation double precision NOT NULL GENERATED ALWAYS AS (likert_polarisation(${counts('liquid')})) STORED`)
  }
  return `ALTER TABLE ${table} ${[...dropped, ...added].join(',\n  ')};`
}

/** The live results' triggers (migration 015) watched derived columns too; the counts say the same. */
const COUNTS = ['direct', 'liquid'].flatMap((prefix) => [...LEVELS, 'skipped'].map((field) => `${prefix}_${field}`))
const changed = (columns: string[]) =>
  `(${columns.map((column) => `OLD.${column}`).join(', ')}) IS DISTINCT FROM (${columns.map((column) => `NEW.${column}`).join(', ')})`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP TRIGGER questions_live_figures ON questions;
DROP TRIGGER question_choices_live_figures ON question_choices;
${TABLES.map(alter).join('\n')}
CREATE TRIGGER questions_live_figures AFTER UPDATE ON questions FOR EACH ROW
  WHEN (${changed([...COUNTS, 'publish'])}) EXECUTE FUNCTION notify_question_figures();
CREATE TRIGGER question_choices_live_figures AFTER UPDATE ON question_choices FOR EACH ROW
  WHEN (${changed([...COUNTS, 'text', 'store_number'])}) EXECUTE FUNCTION notify_question_figures();
`,
  )
}
