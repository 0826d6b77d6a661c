import fs from 'node:fs'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { compareRepository } from '../../src/modules/compare/compare.repository.ts'
import { openLargeSeed, percentile, round, sampleRoundRobin, type BenchCase } from '../shared.ts'

/**
 * npm run bench -- compare [--regenerate] [--samples N] [--others N]
 * compare_n_users_quick on the large seed (PostgreSQL, database civic_bench_population, shared with the population
 * suite): the heaviest voter against the 1,000 people who answered most, through the whole HTTP layer (Fastify's
 * inject), anonymous and signed in as that voter (who then also keeps the 1,000 figures), and the statement alone;
 * each against the floor measured in the same rounds: one statement reading those people's answers to the
 * voter's questions once (a count of the matching rows of both answer tables).
 */
export async function runCompareBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      regenerate: { type: 'boolean', default: false },
      samples: { type: 'string', default: '30' },
      others: { type: 'string', default: '1000' },
    },
  })
  const samples = Number(values.samples)
  const othersWanted = Number(values.others)
  const { handle, seedSeconds } = await openLargeSeed(values.regenerate!)
  const db = handle.db
  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
    // The machine may be shared: the load says how much the figures can be trusted.
    load_average_at_start: os.loadavg().map((load) => round(load, 1)),
  }
  try {
    if (seedSeconds !== null) report.seed_s = seedSeconds
    // As autovacuum leaves a settled database: visibility maps set (index-only scans), statistics fresh.
    await sql`VACUUM (ANALYZE) question_votes, question_choice_votes, user_compares, users`.execute(db)

    // The heaviest voter, and the people who answered most (hundreds of answers each).
    const answerCounts = sql`(SELECT user_id FROM question_votes WHERE value IS NOT NULL
      UNION ALL SELECT user_id FROM question_choice_votes WHERE value IS NOT NULL)`
    const {
      rows: [voter],
    } = await sql<{ user_id: number; answers: number }>`
      SELECT user_id, count(*)::int AS answers FROM ${answerCounts} a GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT 1`.execute(db)
    const { rows: top } = await sql<{ user_id: number; answers: number }>`
      SELECT user_id, count(*)::int AS answers FROM ${answerCounts} a WHERE user_id <> ${voter.user_id}
      GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT ${othersWanted}`.execute(db)
    const others = top.map((row) => row.user_id)
    const floorStatement = () => sql<{ answers: number }>`
      SELECT (SELECT count(*) FROM question_votes b
              WHERE b.user_id = ANY(${others}::int4[])
                AND b.question_id IN (SELECT question_id FROM question_votes WHERE user_id = ${voter.user_id}))::int
           + (SELECT count(*) FROM question_choice_votes b
              WHERE b.user_id = ANY(${others}::int4[])
                AND b.question_id IN (SELECT question_id FROM question_choice_votes WHERE user_id = ${voter.user_id}))::int AS answers`
    const {
      rows: [floorRows],
    } = await floorStatement().execute(db)
    report.counts = (
      await sql`SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM question_votes)::int AS likert_answers,
        (SELECT count(*) FROM question_choice_votes)::int AS choice_answers`.execute(db)
    ).rows[0]
    report.compared = {
      usera: voter,
      others: others.length,
      others_answers: { most: top[0]?.answers, least: top.at(-1)?.answers },
      answers_read_by_the_floor: floorRows.answers,
    }

    const app = await buildApp({
      config: loadConfig({
        LOG_LEVEL: 'silent',
        DATA_DIR: os.tmpdir(),
        RATE_LIMIT_ANONYMOUS: '10000000',
        RATE_LIMIT_IP: '10000000',
        RATE_LIMIT_USER: '10000000',
      }),
      db,
    })
    await app.ready()
    const token = newToken()
    await db
      .insertInto('auth_tokens')
      .values({ user_id: voter.user_id, key_hash: hashSecret(token), name: 'bench' })
      .execute()

    const cases: BenchCase[] = []
    const add = (label: string, run: () => Promise<unknown>) => cases.push({ label, run, times: [] })
    add('floor: read those answers once', () => floorStatement().execute(db))
    add('the statement (distance histograms)', () => compareRepository(db).distanceHistograms(null, voter.user_id, others))
    const get = (label: string, path: string, headers: Record<string, string> = {}) =>
      add(label, async () => {
        const response = await app.inject({ method: 'GET', url: path, headers })
        if (response.statusCode !== 200) throw new Error(`${label}: ${response.statusCode} ${response.body.slice(0, 300)}`)
      })
    const many = `/api/compare_n_users_quick/?usera=${voter.user_id}&users=${others.join(',')}`
    get(`compare_n_users_quick, ${others.length} people, anonymous`, many)
    get(`compare_n_users_quick, ${others.length} people, signed in (keeps them)`, many, { authorization: `Token ${token}` })
    get('compare_users (one pair, full)', `/api/compare_users/?usera=${voter.user_id}&userb=${others[0]}`)
    get('compare_users_quick (one pair)', `/api/compare_users_quick/?usera=${voter.user_id}&userb=${others[0]}`)

    console.error(`${cases.length} cases, ${samples} samples each, round-robin`)
    await sampleRoundRobin(cases, samples, 3)
    const floor = percentile(cases[0].times, 50)
    const results: Record<string, unknown> = {}
    for (const c of cases) {
      const p50 = percentile(c.times, 50)
      results[c.label] = { p50_ms: round(p50), p99_ms: round(percentile(c.times, 99)), over_floor_p50: round(p50 / floor, 2) }
    }
    report.samples = samples
    report.load_average_at_end = os.loadavg().map((load) => round(load, 1))
    report.results = results
    await db.deleteFrom('auth_tokens').where('user_id', '=', voter.user_id).where('name', '=', 'bench').execute()
    await app.close()
    fs.mkdirSync('bench/results', { recursive: true })
    const file = `bench/results/compare-${String(report.date).slice(0, 10)}.json`
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    console.log(JSON.stringify(report, null, 2))
    console.error(`written to ${file}`)
  } finally {
    await handle.close()
  }
}
