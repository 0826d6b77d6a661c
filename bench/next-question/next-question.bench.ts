import fs from 'node:fs'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import pg from 'pg'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { connectDatabase } from '../../src/db/connect.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { column } from '../../src/db/ordering.ts'
import { percentile, round } from '../shared.ts'
import { COLLECTION_ID, generateNextQuestionScale, NQ_SCALE, USERS } from './generate.ts'

/**
 * npm run bench -- next-question [--regenerate] [--samples N]
 * GET /api/next_question_light/ (and /api/next_question/ for the pages of 100) through Fastify's inject on a
 * generated PostgreSQL database (reused when present), for a new user and two heavy ones, against floors
 * measured in the same run. Cases are measured round-robin, so machine noise spreads over all of them alike.
 */

export async function runNextQuestionBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { regenerate: { type: 'boolean', default: false }, samples: { type: 'string', default: '100' } },
  })
  const samples = Number(values.samples)
  const server = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const name = 'civic_bench_next_question'
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1
  const url = new URL(server)
  url.pathname = `/${name}`
  let generate = values.regenerate || !exists
  if (!generate) {
    // A database left half-made by an interrupted run is made again.
    const probe = new pg.Client({ connectionString: url.toString() })
    await probe.connect()
    const done = await probe.query(`SELECT 1 FROM pg_tables WHERE tablename = 'bench_complete'`)
    await probe.end()
    generate = done.rowCount !== 1
  }
  if (generate) {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${name}`)
  }
  await admin.end()
  const handle = await connectDatabase({ databaseUrl: url.toString(), dataDir: '', poolSize: 4 })
  const db = handle.db
  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
    scale: NQ_SCALE,
  }
  try {
    if (generate) {
      console.error('generating')
      const started = performance.now()
      await migrateToLatest(db)
      await generateNextQuestionScale(db)
      await sql`CREATE TABLE bench_complete ()`.execute(db)
      report.generate_s = Math.round((performance.now() - started) / 100) / 10
    }
    await migrateToLatest(db) // a reused database gets indexes added since
    report.counts = (
      await sql`SELECT
      (SELECT count(*) FROM questions WHERE publish AND end_at IS NULL)::int AS open_questions,
      (SELECT count(*) FROM question_votes)::int AS likert_answers, (SELECT count(*) FROM question_choice_votes)::int AS choice_answers,
      (SELECT count(*) FROM users)::int AS users`.execute(db)
    ).rows[0]
    const {
      rows: [tag],
    } = await sql<{ tag_id: number; questions: number }>`
      SELECT tag_id, count(*)::int AS questions FROM question_tags GROUP BY tag_id ORDER BY count(*) DESC OFFSET 5 LIMIT 1`.execute(db)
    report.filter_tag = tag

    const app = await buildApp({
      config: loadConfig({
        LOG_LEVEL: 'silent',
        DATA_DIR: os.tmpdir(),
        RATE_LIMIT_ANONYMOUS: '10000000',
        RATE_LIMIT_USER: '10000000',
        RATE_LIMIT_IP: '10000000',
        RATE_LIMIT_APP_KEY: '10000000',
      }),
      db,
    })
    await app.ready()
    const auth: Record<string, Record<string, string>> = { anonymous: {} }
    for (const [who, id] of Object.entries(USERS)) {
      const token = newToken()
      await db
        .insertInto('auth_tokens')
        .values({ user_id: id, key_hash: hashSecret(token), name: 'bench' })
        .execute()
      auth[who] = { authorization: `Token ${token}` }
    }

    const queries: Record<string, string> = {
      one: '',
      thirty: 'limit_count=30',
      tag: `tags__tag=${tag.tag_id}`,
      tag_thirty: `tags__tag=${tag.tag_id}&limit_count=30`,
      consensus: 'ordering=-liquid_consensus',
      collection_order: `in_collections__parent=${COLLECTION_ID}&order=1&limit_count=30`,
      counts_only: 'return_unanswered_count=1',
      // The older clients' long walk: one page of 100 on /api/next_question/ (next_question_light stops at 30).
      hundred: 'limit_count=100',
      tag_hundred: `tags__tag=${tag.tag_id}&limit_count=100`,
      collection_hundred: `in_collections__parent=${COLLECTION_ID}&order=1&limit_count=100`,
    }
    const pathOf = (query: string) => (query.endsWith('hundred') ? '/api/next_question/' : '/api/next_question_light/')
    type Case = { label: string; run: () => Promise<unknown>; times: number[] }
    const cases: Case[] = []
    const add = (label: string, run: () => Promise<unknown>) => cases.push({ label, run, times: [] })
    // Floors: a statement round trip, one probe of the answer index, and the HTTP layer with token sign-in.
    add('floor: SELECT 1', () => sql`SELECT 1`.execute(db))
    add('floor: one index probe', () =>
      sql`SELECT 1 FROM question_votes WHERE question_id = 77 AND user_id = ${USERS.heavyRandom}`.execute(db),
    )
    // What serving cannot go below: counting the open questions (the whole of a fresh user's counts), and
    // reading a heavy user's 50,000 answers in question order (what a heavy user's counts add at the least).
    add('floor: count open questions', () =>
      sql`SELECT count(*) FROM questions WHERE publish AND (start_at IS NULL OR start_at <= now()) AND (end_at IS NULL OR end_at > now())`.execute(
        db,
      ),
    )
    add('floor: read heavy answers', () =>
      sql`SELECT count(*) FROM ((SELECT question_id FROM question_votes WHERE user_id = ${USERS.heavyFirst} ORDER BY question_id) UNION ALL (SELECT question_id FROM question_choice_votes WHERE user_id = ${USERS.heavyFirst} ORDER BY question_id)) answered`.execute(
        db,
      ),
    )
    add('floor: GET /api/ signed in', async () => {
      const response = await app.inject({ method: 'GET', url: '/api/', headers: auth.fresh })
      if (response.statusCode !== 200) throw new Error(response.body)
    })
    const bodies: Record<string, unknown> = {}
    for (const [query, text] of Object.entries(queries)) {
      for (const who of ['fresh', 'heavyRandom', 'heavyFirst', 'anonymous']) {
        const label = `${who} ${query}`
        add(label, async () => {
          const response = await app.inject({ method: 'GET', url: `${pathOf(query)}?${text}`, headers: auth[who] })
          if (response.statusCode !== 200) throw new Error(`${label}: ${response.statusCode} ${response.body}`)
          const body = response.json()
          bodies[label] ??= {
            count: body.count,
            unanswered: body.unanswered,
            returning: body.returning,
            first: body.results[0]?.id ?? null,
          }
        })
      }
    }
    console.error(`${cases.length} cases, ${samples} samples each, round-robin`)
    for (const c of cases) for (let i = 0; i < 5; i++) await c.run()
    for (let i = 0; i < samples; i++) {
      for (const c of cases) {
        const started = performance.now()
        await c.run()
        c.times.push(performance.now() - started)
      }
    }
    const p50 = (label: string) => percentile(cases.find((c) => c.label === label)!.times, 50)
    const floorHttp = p50('floor: GET /api/ signed in')
    const results: Record<string, unknown> = {}
    for (const c of cases) {
      const row: Record<string, unknown> = { p50_ms: round(percentile(c.times, 50)), p99_ms: round(percentile(c.times, 99)) }
      const query = c.label.split(' ')[1]
      if (queries[query] !== undefined) {
        row.heavy_over_new_p50 = round(percentile(c.times, 50) / p50(`fresh ${query}`))
        row.over_http_floor_p50 = round(percentile(c.times, 50) / floorHttp)
        row.answer = bodies[c.label]
      }
      results[c.label] = row
    }
    report.samples = samples
    report.results = results
    report.plans = await plans(db, tag.tag_id)
    await app.close()
    fs.mkdirSync('bench/results', { recursive: true })
    const file = `bench/results/next-question-${String(report.date).slice(0, 10)}.json`
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    console.log(JSON.stringify(report, null, 2))
    console.error(`written to ${file}`)
  } finally {
    await handle.close()
  }
}

/** Buffers and time of the statements for each user, as PostgreSQL runs them. */
async function plans(db: Parameters<typeof generateNextQuestionScale>[0], tagId: number) {
  const { nextQuestionRepository } = await import('../../src/modules/next-question/next-question.repository.ts')
  const caller = { id: USERS.heavyFirst, isStaff: false, tokenId: 0 }
  const filters = { questionFilters: {}, exclude: [] }
  const out: Record<string, string[]> = {}
  const repository = nextQuestionRepository(db)
  const byId = [{ expression: column('questions.id'), direction: 'asc' as const }]
  const explain = async (label: string, compiled: { sql: string; parameters: readonly unknown[] }) => {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql.raw(inline(compiled))}`.execute(db)
    out[label] = rows.map((row) => row['QUERY PLAN'])
  }
  // The walk by id as served: the counts, then the page from the first unanswered question they found.
  for (const [who, id] of [
    ['heavyFirst', USERS.heavyFirst],
    ['heavyRandom', USERS.heavyRandom],
    ['fresh', USERS.fresh],
  ] as const) {
    const { first } = await repository.counts(filters, { ...caller, id })
    await explain(`counts, ${who}`, repository.countsQuery(filters, { ...caller, id }).compile())
    await explain(`page, ${who}`, repository.nextQuery(filters, { ...caller, id }, byId, 30, null, first).compile())
  }
  await explain(
    'page with tag, heavyFirst',
    repository.nextQuery({ questionFilters: { tags__tag: tagId }, exclude: [] }, caller, byId, 30, null).compile(),
  )
  return out
}

/** Parameters written into the text, for EXPLAIN (they are all numbers and booleans here). */
function inline(compiled: { sql: string; parameters: readonly unknown[] }): string {
  return compiled.sql.replace(/\$(\d+)/g, (_m, n: string) => {
    const value = compiled.parameters[Number(n) - 1]
    if (typeof value === 'number' || typeof value === 'boolean') return String(value)
    return `'${String(value).replace(/'/g, "''")}'`
  })
}
