import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { round } from '../shared.ts'
import { runLoad, type LoadRun } from './autocannon-runner.ts'
import { sampleCpu, sampleResidentPeak, startWriteLimitServer, type Running } from './processes.ts'
import type { ScenarioResult } from './report.ts'
import { sampleLockWaits } from './lock-waits.ts'
import { newPeople } from './scenarios.ts'
import { liquidRepository } from '../../src/engines/liquid/liquid.repository.ts'
import { rebuildQuestionLiquid } from '../../src/engines/liquid/liquid.rebuild.ts'

/**
 * Who answers and what: many existing people, the tags that spread them over questions, the surge's ten questions,
 * and the collection the survey surge walks (the largest).
 */
export interface WritePicks {
  users: number[]
  tags: number[]
  surgeQuestions: number[]
  collection: number
  /** How many questions the collection holds: how many people a survey surge needs. */
  collectionQuestions: number
}

export const WRITERS = 2000
/**
 * A rate no survey surge reaches here (the limit's was 1,800 to 7,400 requests a second on the machines measured so
 * far): people to spare. A run that uses them all up is refused (walkersLeft), since its last requests find the walk
 * done and cost next to nothing.
 */
const SURVEY_REQUESTS_PER_S = 16_000

export async function pickWriters(
  db: Kysely<Database>,
  leaveOut: number[],
  collection: { id: number; questions: number },
): Promise<WritePicks> {
  const users = await sql<{ id: number }>`
    SELECT id FROM users WHERE is_active AND NOT is_deleted AND NOT (id = ANY(${leaveOut})) ORDER BY id LIMIT ${WRITERS}`.execute(db)
  const tags = await sql<{ tag_id: number }>`
    SELECT tag_id FROM question_tags GROUP BY tag_id ORDER BY count(*) DESC, tag_id LIMIT 50`.execute(db)
  const surge = await sql<{ id: number }>`
    SELECT id FROM questions WHERE publish AND subtype = 'likert' AND (start_at IS NULL OR start_at <= now())
      AND (end_at IS NULL OR end_at > now()) ORDER BY id LIMIT 10`.execute(db)
  // The write limit's scratch table, shaped as question_votes (its indexes and checks, no foreign keys).
  await sql`CREATE TABLE IF NOT EXISTS bench_vote_limit (LIKE question_votes INCLUDING ALL)`.execute(db)
  return {
    users: users.rows.map((r) => r.id),
    tags: tags.rows.map((r) => r.tag_id),
    surgeQuestions: surge.rows.map((r) => r.id),
    collection: collection.id,
    collectionQuestions: collection.questions,
  }
}

export interface WriteScenario {
  name: string
  write: NonNullable<LoadRun['write']>
  /** Connections of its own, where the scenario is about a given crowd; otherwise the run's. */
  connections?: number
  /** A broadcast whose new people all delegate the question to one trustee, who has answered it. */
  trustee?: true
}

export function writeScenarios(picks: WritePicks, tokens: string[]): WriteScenario[] {
  // The survey surges' people are made for each run (measureWrite): these tokens are replaced.
  const survey = { kind: 'survey', tokens, collection: picks.collection, questions: picks.collectionQuestions } as const
  return [
    { name: 'answering loop', write: { kind: 'answering', tokens, tags: picks.tags } },
    { name: 'surge (ten questions)', write: { kind: 'surge', tokens, questions: picks.surgeQuestions } },
    { name: 'survey surge 16', write: survey, connections: 16 },
    { name: 'survey surge 64', write: survey, connections: 64 },
    { name: 'broadcast 64', write: { ...survey, kind: 'broadcast' }, connections: 64 },
    { name: "a trustee's delegators 64", write: { ...survey, kind: 'broadcast' }, connections: 64, trustee: true },
  ]
}

const WRITE_PATHS: Record<WriteScenario['write']['kind'], string> = {
  answering: 'GET next_question_light, POST question_votes',
  surge: 'POST question_votes',
  survey: 'GET next_question_light?in_collections__parent, POST the answer',
  broadcast: 'GET next_question_light?in_collections__parent, POST the answer (a new person each time)',
}

/** `civic-survey check` on the database: whether every stored figure equals a recomputation afterwards. */
async function check(env: Record<string, string>): Promise<{ clean: boolean; summary: string; seconds: number }> {
  const started = performance.now()
  try {
    const { stderr } = await promisify(execFile)(process.execPath, ['bin/civic-survey.js', 'check'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
      maxBuffer: 256 * 1024 * 1024,
    })
    return { clean: true, summary: stderr.trim().split('\n').at(-1) ?? '', seconds: round((performance.now() - started) / 1000, 1) }
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    const summary = `${stderr.trim().split('\n').at(-1)}; first: ${stdout.split('\n').slice(0, 3).join(' | ')}`
    return { clean: false, summary, seconds: round((performance.now() - started) / 1000, 1) }
  }
}

/**
 * Seconds each side answers the same load before it is measured, with people of its own where the scenario makes
 * them: a serving process has run its code and planned its statements long before a surge comes. Measured cold, the
 * service's first seconds (compiling its answer path, each connection planning the calls) counted as the surge.
 */
const WARM_UP_S = 2

/** The scenario's load with people made for it: enough for `seconds` at a generous rate, delegating where it says. */
async function withWalkers(
  db: Kysely<Database>,
  scenario: WriteScenario,
  seconds: number,
  connections: number,
  users: Record<string, number>,
): Promise<WriteScenario['write']> {
  const write = scenario.write
  if (write.kind !== 'survey' && write.kind !== 'broadcast') return write
  // People who have answered nothing, so the service walks the collection as the limit does (its table is
  // empty): two requests a question and one more to find a walk done.
  const perPerson = write.kind === 'survey' ? 2 * write.questions + 1 : 2
  const needed = Math.ceil((seconds * SURVEY_REQUESTS_PER_S) / perPerson) + connections
  const walkers = await newPeople(db, needed, `bench-walker-${Date.now().toString(36)}-${seconds}`)
  walkers.tokens.forEach((token, i) => (users[token] = walkers.ids[i]))
  if (scenario.trustee) await delegateToOneTrustee(db, walkers.ids, write.collection)
  return { ...write, tokens: walkers.tokens }
}

/**
 * The write limit, then the service, under the same load, each after its warm-up; then the check. The scratch table
 * is emptied before the limit's run so each run starts alike.
 */
export async function measureWrite(
  db: Kysely<Database>,
  service: Running,
  serviceEnv: Record<string, string>,
  databaseUrl: string,
  users: Record<string, number>,
  scenario: WriteScenario,
  duration: number,
  runConnections: number,
  appKey?: string,
): Promise<ScenarioResult & { check: Awaited<ReturnType<typeof check>> }> {
  const connections = scenario.connections ?? runConnections
  await sql`TRUNCATE bench_vote_limit`.execute(db)
  const write = await withWalkers(db, scenario, duration, connections, users)
  const warmUp = { connections, duration: WARM_UP_S, write: await withWalkers(db, scenario, WARM_UP_S, connections, users), appKey }
  const walkers = write.kind === 'survey' || write.kind === 'broadcast' ? write.tokens.map((token) => users[token]!) : null
  const limit = await startWriteLimitServer(databaseUrl, users, 10)
  let limitFigures
  try {
    await runLoad({ url: limit.url, ...warmUp })
    limitFigures = await runLoad({ url: limit.url, connections, duration, write, appKey })
  } finally {
    await limit.stop()
  }
  if (walkers) await walkersLeft(db, walkers, 'bench_vote_limit', `${scenario.name}, the limit`)
  await runLoad({ url: service.url, ...warmUp })
  const peak = sampleResidentPeak(service.process.pid!)
  const cpu = sampleCpu(service.process.pid!)
  const waits = sampleLockWaits(db)
  const serviceFigures = await runLoad({ url: service.url, connections, duration, write, appKey })
  const peakMiB = peak()
  const cores = cpu()
  const lockWaits = await waits()
  if (walkers) await walkersLeft(db, walkers, 'question_votes', `${scenario.name}, the service`)
  return {
    scenario: scenario.name,
    path: WRITE_PATHS[scenario.write.kind] + (scenario.trustee ? ', each delegating it to one trustee who answered it' : ''),
    connections,
    signed_in: true,
    app_key: appKey !== undefined,
    generator: 'autocannon',
    bytes: 0,
    service: serviceFigures,
    limit: limitFigures,
    ratio: round(serviceFigures.requests_per_s / limitFigures.requests_per_s, 4),
    service_peak_rss_mib: peakMiB === null ? null : round(peakMiB, 1),
    ...cores,
    lock_waits: lockWaits,
    check: await check(serviceEnv),
  }
}

/**
 * Every walker delegates the collection's first question to one new person, who answers it before the run: each
 * walker's answer then takes a vote off the trustee's answer and off the trustee's kept block. The delegations are
 * written beside the service, so the question's weights and kept sizes are resolved again, under its gate.
 */
async function delegateToOneTrustee(db: Kysely<Database>, walkers: number[], collection: number): Promise<void> {
  const trustee = (await newPeople(db, 1, `bench-trustee-${Date.now().toString(36)}`)).ids[0]!
  const { rows } = await sql<{ id: number; subtype: string; choice: number | null }>`
    SELECT q.id, q.subtype, (SELECT min(c.id) FROM question_choices c WHERE c.question_id = q.id) AS choice
    FROM question_collection_items i JOIN questions q ON q.id = i.question_id
    WHERE i.parent_id = ${collection} AND i.type = 'Q' ORDER BY i."order", i.id LIMIT 1`.execute(db)
  const question = rows[0]!
  await sql`INSERT INTO question_delegations (user_id, question_id, trustee_id)
    SELECT w, ${question.id}, ${trustee} FROM unnest(${walkers}::int[]) AS w`.execute(db)
  await db.transaction().execute(async (trx) => {
    await liquidRepository(trx).lockQuestions([question.id])
    await rebuildQuestionLiquid(trx, question.id, true)
  })
  const answered = await (
    question.subtype === 'mcq'
      ? sql<{ outcome: string }>`SELECT outcome FROM cast_pick(${question.choice}, ${trustee}, false, 3::smallint, false, NULL,
          NULL, NULL, NULL, NULL, NULL)`
      : sql<{ outcome: string }>`SELECT outcome FROM cast_likert(${question.id}, ${trustee}, false, 3::smallint, false, NULL,
          NULL, true, NULL, NULL, NULL, NULL, NULL)`
  ).execute(db)
  const outcome = answered.rows[0]?.outcome
  if (outcome !== 'written') throw new Error(`the trustee's answer to question ${question.id}: ${outcome}`)
}

/**
 * Throws when every walker made for a run has answered something: the load then ran out of people and went on with
 * walks already done. The run's answers are in `table` (the limit's, or the service's likert ones) or are picks.
 */
async function walkersLeft(db: Kysely<Database>, walkers: number[], table: 'bench_vote_limit' | 'question_votes', run: string) {
  const { rows } = await sql<{ left: number }>`
    SELECT count(*)::int AS left FROM unnest(${walkers}::int[]) AS w(id)
    WHERE NOT EXISTS (SELECT FROM ${sql.table(table)} v WHERE v.user_id = w.id)
      AND NOT EXISTS (SELECT FROM question_choice_votes c WHERE c.user_id = w.id)`.execute(db)
  if (rows[0]!.left === 0) throw new Error(`${run}: every walker made was used up; raise SURVEY_REQUESTS_PER_S in bench/load/writes.ts`)
}
