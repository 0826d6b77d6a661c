import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/** The answer calls and the fold: every statement they run is planned for one row of a few keys. */
const CALLS = [
  'cast_likert(integer, integer, boolean, smallint, boolean, integer, smallint, boolean, text, text, text, text, text)',
  'cast_pick(integer, integer, boolean, smallint, boolean, integer, text, text, text, text, text)',
  'edit_answer(boolean, integer, boolean, smallint, boolean, boolean, smallint, boolean, boolean, integer)',
  'withdraw_answer(boolean, integer)',
  'fold_figure_deltas(boolean, integer[])',
]

/**
 * The answer calls and the fold keep one plan per statement on each connection. PostgreSQL plans a PL/pgSQL
 * statement for its parameters five times and keeps the generic plan only when its estimate is no worse; here the
 * parameters fold branches away (`CASE WHEN p_pick`, the skipped sub-selects of count_user_answer), so custom
 * plans always looked cheaper and every answer planned its statements again: 0.33 → 0.30 ms of server time per
 * first answer (500 in one statement, the fastest of ten batches, demo seed), the fold 6.2 → 4.5 ms under the survey
 * surge (the same setting database-wide). Every statement in them is a probe by key, whose generic plan is the
 * custom one. The delta tables, emptied by every fold and vacuumed by the serving processes
 * (src/engines/figures/figure-folding.ts), keep their pages: truncating the emptied end takes the table's exclusive
 * lock from the answers appending to it. Signatures, bodies and effects unchanged (expand only).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `${CALLS.map((call) => `ALTER FUNCTION ${call} SET plan_cache_mode = force_generic_plan;`).join('\n')}
ALTER TABLE question_figure_deltas SET (vacuum_truncate = false);
ALTER TABLE tag_vote_deltas SET (vacuum_truncate = false);
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `${CALLS.map((call) => `ALTER FUNCTION ${call} RESET plan_cache_mode;`).join('\n')}
ALTER TABLE question_figure_deltas RESET (vacuum_truncate);
ALTER TABLE tag_vote_deltas RESET (vacuum_truncate);
`,
  )
}
