import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { round } from '../shared.ts'

/**
 * How often answers queue behind one another during a write run: every `everyMs`, pg_stat_activity is read for the
 * answer calls (cast_likert, cast_pick, edit_answer, withdraw_answer) that are active, and those among them waiting on
 * a lock that another answer call holds (pg_blocking_pids). `share`: the samples with at least one such wait.
 */
export interface LockWaits {
  samples: number
  share: number
  /** mean answer calls waiting on another's lock, and mean active, per sample */
  waiting: number
  active: number
}

const ANSWER_CALL = '(cast_likert|cast_pick|edit_answer|withdraw_answer)\\('

export function sampleLockWaits(db: Kysely<Database>, everyMs = 50): () => Promise<LockWaits> {
  let samples = 0
  let withWaits = 0
  let waiting = 0
  let active = 0
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await sql<{ waiting: number; active: number }>`
        SELECT count(*) FILTER (WHERE a.wait_event_type = 'Lock' AND EXISTS (
                 SELECT 1 FROM pg_stat_activity b WHERE b.pid = ANY(pg_blocking_pids(a.pid)) AND b.query ~ ${ANSWER_CALL})
               )::int AS waiting,
               count(*)::int AS active
        FROM pg_stat_activity a
        WHERE a.datname = current_database() AND a.state = 'active' AND a.query ~ ${ANSWER_CALL}`.execute(db)
      samples++
      waiting += rows[0].waiting
      active += rows[0].active
      if (rows[0].waiting > 0) withWaits++
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  })()
  return async () => {
    stopped = true
    await loop
    const per = (n: number) => (samples === 0 ? 0 : round(n / samples, 2))
    return { samples, share: per(withWaits), waiting: per(waiting), active: per(active) }
  }
}
