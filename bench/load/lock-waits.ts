import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { round } from '../shared.ts'

/**
 * How often answers queue behind one another during a write run: every `everyMs`, pg_stat_activity is read for the
 * answer calls (cast_likert, cast_pick, their groups, edit_answer, withdraw_answer) that are active, and those among
 * them waiting on a lock that another answer call holds (pg_blocking_pids). Each such wait is told by what it waits
 * for, from the waiter's own pg_locks: a row of the question, its choices or its tags, or a question's answering gate
 * (migration 046), is the question's; a row of the voter, their counters or their own answer, or their own answer's
 * advisory lock, is the person's (one person answering several questions at the same instant). `share`: the samples with at least one
 * wait on another answer; `same_question`: those with one on the question's own locks; `events`: what the answer
 * calls in flight were waiting on (or running), summed over the samples.
 */
export interface LockWaits {
  samples: number
  share: number
  same_question: number
  /** mean answer calls waiting on another's lock, and mean active, per sample */
  waiting: number
  active: number
  /** the waits on another answer's lock by what they wait for (question, person, other), summed over the samples */
  waits_on: Record<string, number>
  /** what the active answer calls were doing, summed over the samples: `wait_event_type:wait_event`, or `cpu` */
  events: Record<string, number>
}

/** An answer call's statement: a group of casts (migration 057), or one call. */
const ANSWER_CALL = '(cast_likert|cast_pick|edit_answer|withdraw_answer)(_group)?\\('

export function sampleLockWaits(db: Kysely<Database>, everyMs = 50): () => Promise<LockWaits> {
  let samples = 0
  let withWaits = 0
  let withQuestionWaits = 0
  let waiting = 0
  let active = 0
  const waitsOn: Record<string, number> = {}
  const events: Record<string, number> = {}
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await sql<{ event: string; on: string | null }>`
        SELECT coalesce(a.wait_event_type || ':' || a.wait_event, 'cpu') AS event,
          CASE WHEN a.wait_event_type = 'Lock' AND EXISTS (
                 SELECT 1 FROM pg_stat_activity b WHERE b.pid = ANY(pg_blocking_pids(a.pid)) AND b.query ~ ${ANSWER_CALL})
            THEN coalesce((
              SELECT CASE
                WHEN l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid IN (4701, 4702) THEN 'question'
                WHEN l.locktype = 'advisory' THEN 'person'
                WHEN l.relation::regclass::text IN ('questions', 'question_choices', 'tags') THEN 'question'
                WHEN l.relation::regclass::text IN ('users', 'user_answer_counts', 'question_votes', 'question_choice_votes')
                  THEN 'person'
                ELSE 'other' END
              FROM pg_locks l
              WHERE l.pid = a.pid AND ((l.locktype = 'advisory' AND NOT l.granted) OR (l.locktype = 'tuple' AND l.granted))
              LIMIT 1), 'other')
          END AS on
        FROM pg_stat_activity a
        WHERE a.datname = current_database() AND a.state = 'active' AND a.query ~ ${ANSWER_CALL}`.execute(db)
      samples++
      active += rows.length
      const waits = rows.filter((row) => row.on !== null)
      waiting += waits.length
      if (waits.length > 0) withWaits++
      if (waits.some((row) => row.on === 'question')) withQuestionWaits++
      for (const row of rows) events[row.event] = (events[row.event] ?? 0) + 1
      for (const row of waits) waitsOn[row.on!] = (waitsOn[row.on!] ?? 0) + 1
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  })()
  return async () => {
    stopped = true
    await loop
    const per = (n: number) => (samples === 0 ? 0 : round(n / samples, 2))
    return {
      samples,
      share: per(withWaits),
      same_question: per(withQuestionWaits),
      waiting: per(waiting),
      active: per(active),
      waits_on: waitsOn,
      events,
    }
  }
}
