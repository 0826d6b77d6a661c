/**
 * npm run bench -- groups-read [--fresh]
 * Opinion groups of a 10 M-answer scope read from PostgreSQL: the engine bench's large conversation (100,000
 * people, 1,000 likert questions, five planted groups) as a collection (`civic_bench_groups_read`, made on the
 * first run). Each measure runs in a process of its own, so that its peak resident memory is its own: reading the
 * answers alone, then recomputing and keeping the groups as the service does; each with the answers read in
 * windows of accounts (OPINION_GROUPS_ANSWERS_PER_READ, 500,000 by default) and, for comparison, in one statement.
 */
import { spawnSync } from 'node:child_process'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { sql } from 'kysely'
import { connectDatabase } from '../../src/db/connect.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { adjustedRandIndex } from '../../src/engines/opinion-groups/index.ts'
import { ANSWERS_PER_READ, opinionGroupsRepository } from '../../src/modules/opinion-groups/opinion-groups.repository.ts'
import { recomputeOpinionGroups } from '../../src/modules/opinion-groups/opinion-groups.service.ts'
import { benchDatabase, round } from '../shared.ts'
import { generate as generatePlanted } from './planted.ts'

const DATABASE = 'civic_bench_groups_read'

/**
 * The engine bench's large conversation (bench/opinion-groups/planted.ts) as a collection: one person per
 * participant, one likert question per column, the answers copied in (no trigger runs: the questions' stored
 * figures are set once at the end). Person i is `first + i`; the planted group of each person is kept beside.
 */
async function generate(url: string): Promise<void> {
  const handle = await connectDatabase({ databaseUrl: url, dataDir: '', poolSize: 1 })
  await migrateToLatest(handle.db)
  await handle.close()
  const started = Date.now()
  const { input, planted } = generatePlanted('large')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('SET session_replication_role = replica')
    await client.query(`INSERT INTO users (username) VALUES ('reader-author')`)
    await client.query(`INSERT INTO users (username) SELECT 'reader-' || g FROM generate_series(1, ${input.accountIds.length}) g`)
    await client.query(`
      INSERT INTO questions (question, slug, user_id, publish, subtype)
      SELECT 'Question ' || g, 'question-' || g, (SELECT min(id) FROM users), true, 'likert'
      FROM generate_series(1, ${input.columns.length}) g`)
    await client.query(`INSERT INTO question_collections (name, user_id) SELECT 'Read', min(id) FROM users`)
    await client.query(`
      INSERT INTO question_collection_items (parent_id, question_id, type, "order")
      SELECT (SELECT max(id) FROM question_collections), id, 'Q', row_number() OVER (ORDER BY id) FROM questions`)
    const firstPerson = (await client.query(`SELECT min(id) + 1 AS id FROM users`)).rows[0].id as number
    const firstQuestion = (await client.query(`SELECT min(id) AS id FROM questions`)).rows[0].id as number
    const { participant, column, value } = input.answers
    async function* lines() {
      for (let at = 0; at < participant.length; at += 100_000) {
        let chunk = ''
        for (let a = at; a < Math.min(at + 100_000, participant.length); a++)
          chunk += `${firstPerson + participant[a]}\t${firstQuestion + column[a]}\t${value[a] + 3}\tf\tf\n`
        yield chunk
      }
    }
    await pipeline(
      Readable.from(lines()),
      client.query(copyFrom('COPY question_votes (user_id, question_id, value, private, skipped) FROM STDIN')),
    )
    await client.query(`CREATE TABLE bench_planted (user_id int PRIMARY KEY, camp int NOT NULL)`)
    await client.query(
      `INSERT INTO bench_planted SELECT ${firstPerson} + i - 1, (($1::int[])[i]) FROM generate_series(1, ${planted.length}) i`,
      [Array.from(planted)],
    )
    await client.query(`
      UPDATE questions SET direct_minimum = counted.l1, direct_low = counted.l2, direct_medium = counted.l3,
                           direct_high = counted.l4, direct_maximum = counted.l5
      FROM (SELECT question_id, count(*) FILTER (WHERE value = 1) AS l1, count(*) FILTER (WHERE value = 2) AS l2,
                   count(*) FILTER (WHERE value = 3) AS l3, count(*) FILTER (WHERE value = 4) AS l4,
                   count(*) FILTER (WHERE value = 5) AS l5
            FROM question_votes GROUP BY question_id) AS counted
      WHERE counted.question_id = questions.id`)
    await client.query('RESET session_replication_role')
    await client.query('VACUUM ANALYZE')
    await client.query('CREATE TABLE bench_complete ()')
  } finally {
    await client.end()
  }
  console.error(`generated in ${round((Date.now() - started) / 1000, 1)} s`)
}

/**
 * In a process of its own, so that its peak resident memory is its own: either read the answers alone, or recompute
 * and keep the groups as the service does (which reads them too). Prints one JSON line.
 */
async function measure(url: string, step: 'read' | 'recompute', perRead: number): Promise<void> {
  const handle = await connectDatabase({ databaseUrl: url, dataDir: '', poolSize: 2 })
  const db = handle.db
  try {
    const collection = (await db.selectFrom('question_collections').select('id').executeTakeFirstOrThrow()).id
    await db.deleteFrom('opinion_group_runs').execute()
    await db.deleteFrom('opinion_group_places').execute()
    const repository = opinionGroupsRepository(db)
    const { questions } = await repository.questions('collection', collection)
    const expected = questions.reduce((sum, q) => sum + q.answers, 0)
    const reads = perRead >= expected ? 1 : Math.ceil(expected / perRead)
    const started = performance.now()
    if (step === 'read') {
      const answers = await repository.answers(
        questions.map((q) => q.id),
        [],
        expected,
        perRead,
      )
      const seconds = (performance.now() - started) / 1000
      const peak = process.resourceUsage().maxRSS / 1024
      console.log(
        JSON.stringify({
          step,
          per_read: perRead,
          reads,
          answers: answers.accountId.length,
          s: round(seconds, 2),
          peak_mib: round(peak, 0),
        }),
      )
      return
    }
    const { result } = await recomputeOpinionGroups(db, 'collection', collection, { minCellSize: 5, weightCap: 5, answersPerRead: perRead })
    const seconds = (performance.now() - started) / 1000
    const peak = process.resourceUsage().maxRSS / 1024
    const { rows: planted } = await sql<{ user_id: number; camp: number }>`SELECT user_id, camp FROM bench_planted`.execute(db)
    const camps = new Map(planted.map((row) => [row.user_id, row.camp]))
    const { accountIds, group } = result.participants
    const grouped = accountIds.flatMap((_, i) => (group[i] >= 0 ? [i] : []))
    const ari = adjustedRandIndex(
      grouped.map((i) => camps.get(accountIds[i])!),
      grouped.map((i) => group[i]),
    )
    console.log(
      JSON.stringify({
        step,
        per_read: perRead,
        reads,
        s: round(seconds, 2),
        peak_mib: round(peak, 0),
        groups: result.groups.length,
        ari_planted: round(ari, 4),
      }),
    )
  } finally {
    await handle.close()
  }
}

export async function runGroupsReadBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      fresh: { type: 'boolean', default: false },
      child: { type: 'string' },
      'per-read': { type: 'string' },
    },
  })
  const { url, generate: missing } = await benchDatabase(DATABASE, values.fresh!)
  if (values.child !== undefined) return measure(url, values.child === 'read' ? 'read' : 'recompute', Number(values['per-read']))
  if (missing) await generate(url)
  for (const [step, perRead] of [
    ['read', ANSWERS_PER_READ],
    ['read', 100_000_000],
    ['recompute', ANSWERS_PER_READ],
    ['recompute', 100_000_000],
  ] as const) {
    const child = ['bench/run.ts', 'groups-read', '--child', step, '--per-read', String(perRead)]
    const run = spawnSync(process.execPath, [...process.execArgv, ...child], {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    })
    if (run.status !== 0) console.log(JSON.stringify({ step, per_read: perRead, failed: run.status ?? run.signal }))
    else process.stdout.write(run.stdout)
  }
}
