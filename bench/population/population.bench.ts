import fs from 'node:fs'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { openLargeSeed, percentile, round, sampleRoundRobin, type BenchCase } from '../shared.ts'

/**
 * npm run bench -- population [--regenerate] [--samples N]
 * The population results of the largest question on the large seed (PostgreSQL, database civic_bench_population,
 * seeded once and reused): its breakdowns and weighted results through the whole HTTP layer (Fastify's inject),
 * each against the plain count of that question's answers measured in the same rounds (the people breakdown
 * against the count of the people it breaks down).
 */
export async function runPopulationBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { regenerate: { type: 'boolean', default: false }, samples: { type: 'string', default: '30' } },
  })
  const samples = Number(values.samples)
  const { handle, seedSeconds } = await openLargeSeed(values.regenerate!)
  const db = handle.db
  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
  }
  try {
    if (seedSeconds !== null) report.seed_s = seedSeconds
    // As autovacuum leaves a settled database: visibility maps set (index-only counts), statistics fresh.
    await sql`VACUUM (ANALYZE)`.execute(db)
    const {
      rows: [largest],
    } = await sql<{ question_id: number; answers: number }>`
      SELECT question_id, count(*)::int AS answers FROM question_votes GROUP BY question_id ORDER BY count(*) DESC LIMIT 1`.execute(db)
    const {
      rows: [largestChoice],
    } = await sql<{ question_id: number; answers: number }>`
      SELECT question_id, count(*)::int AS answers FROM question_choice_votes GROUP BY question_id ORDER BY count(*) DESC LIMIT 1`.execute(
      db,
    )
    const {
      rows: [collection],
    } = await sql<{ collection_id: number; questions: number }>`
      SELECT parent_id AS collection_id, count(*)::int AS questions FROM question_collection_items WHERE type = 'Q' GROUP BY parent_id ORDER BY count(*) DESC LIMIT 1`.execute(
      db,
    )
    report.counts = (
      await sql`SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM question_votes)::int AS likert_answers,
        (SELECT count(*) FROM question_choice_votes)::int AS choice_answers, (SELECT count(*) FROM census_data)::int AS census_records`.execute(
        db,
      )
    ).rows[0]
    report.largest = { likert: largest, choice: largestChoice, collection }

    const app = await buildApp({
      config: loadConfig({
        LOG_LEVEL: 'silent',
        DATA_DIR: os.tmpdir(),
        RATE_LIMIT_ANONYMOUS: '10000000',
        RATE_LIMIT_IP: '10000000',
      }),
      db,
    })
    await app.ready()
    const cases: BenchCase[] = []
    const add = (label: string, run: () => Promise<unknown>) => cases.push({ label, run, times: [] })
    const countOf = (table: 'question_votes' | 'question_choice_votes', id: number) => async () =>
      sql`SELECT count(*) FROM ${sql.table(table)} WHERE question_id = ${id}`.execute(db)
    add('floor: count the likert answers', countOf('question_votes', largest.question_id))
    add('floor: count the choice answers', countOf('question_choice_votes', largestChoice.question_id))
    add('floor: count the active people', () => sql`SELECT count(*) FROM users WHERE is_active AND NOT is_deleted`.execute(db))
    const get = (label: string, path: string) =>
      add(label, async () => {
        const response = await app.inject({ method: 'GET', url: path })
        if (response.statusCode !== 200) throw new Error(`${label}: ${response.statusCode} ${response.body.slice(0, 300)}`)
      })
    const q = largest.question_id
    get('question_demographics', `/api/question_demographics/?question=${q}`)
    get('question_demographics csv', `/api/question_demographics/?question=${q}&format=csv`)
    get('question_geographics', `/api/question_geographics/?question=${q}`)
    get('weighted by age', `/api/question_weighted_demographics/${q}/age/`)
    get('weighted by area', `/api/question_weighted_demographics/${q}/area/`)
    get('choice: question_demographics', `/api/question_demographics/?question=${largestChoice.question_id}`)
    get('choice: weighted by age', `/api/question_weighted_demographics/${largestChoice.question_id}/age/`)
    get('users/demographics', '/api/users/demographics/')
    get(`survey_results (${collection.questions} questions)`, `/api/survey_results/?collection=${collection.collection_id}`)

    console.error(`${cases.length} cases, ${samples} samples each, round-robin`)
    await sampleRoundRobin(cases, samples, 3)
    const floor = (label: string) => percentile(cases.find((c) => c.label === label)!.times, 50)
    const likertFloor = floor('floor: count the likert answers')
    const choiceFloor = floor('floor: count the choice answers')
    const peopleFloor = floor('floor: count the active people')
    const results: Record<string, unknown> = {}
    for (const c of cases) {
      const p50 = percentile(c.times, 50)
      const against = c.label.startsWith('choice:') ? choiceFloor : c.label.startsWith('users/') ? peopleFloor : likertFloor
      results[c.label] = { p50_ms: round(p50), p99_ms: round(percentile(c.times, 99)), over_count_p50: round(p50 / against, 2) }
    }
    report.samples = samples
    report.results = results
    await app.close()
    fs.mkdirSync('bench/results', { recursive: true })
    const file = `bench/results/population-${String(report.date).slice(0, 10)}.json`
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    console.log(JSON.stringify(report, null, 2))
    console.error(`written to ${file}`)
  } finally {
    await handle.close()
  }
}
