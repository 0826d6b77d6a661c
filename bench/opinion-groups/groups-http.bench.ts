/**
 * npm run bench -- groups-http [--duration S] [--answers N] [--port P]
 * Opinion groups through HTTP on the large seed (PostgreSQL, `civic_bench_population`, made by `npm run bench --
 * load`): for the largest collection and the largest tag, the first request (which computes the groups), the kept
 * answer under load against the limit (a bare server answering the same bytes), and freshness: N answers (1,000)
 * posted through HTTP by people of the seed, then how long until the served groups count them.
 */
import { parseArgs } from 'node:util'
import os from 'node:os'
import { sql } from 'kysely'
import { connectDatabase } from '../../src/db/connect.ts'
import { benchDatabase, round } from '../shared.ts'
import { runLoad } from '../load/autocannon-runner.ts'
import { sampleResidentPeak, startLimitServer, startService } from '../load/processes.ts'
import { tokensFor } from '../load/scenarios.ts'

const REFRESH_MS = 1_000

export async function runGroupsHttpBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
      answers: { type: 'string', default: '1000' },
      port: { type: 'string', default: '8741' },
    },
  })
  const duration = Number(values.duration)
  const answers = Number(values.answers)
  const { url, generate } = await benchDatabase('civic_bench_population', false)
  if (generate) throw new Error('the large seed is missing: run `npm run bench -- load` once first')
  const handle = await connectDatabase({ databaseUrl: url, dataDir: '', poolSize: 2 })
  const db = handle.db
  // The largest collection and tag by answers; their kept groups are dropped so that the first request computes.
  const { rows: collections } = await sql<{ id: number; questions: number; answers: number }>`
    SELECT i.parent_id AS id, count(DISTINCT i.question_id)::int AS questions, count(v.id)::int AS answers
    FROM question_collection_items i JOIN question_votes v ON v.question_id = i.question_id
    GROUP BY i.parent_id ORDER BY answers DESC LIMIT 1`.execute(db)
  const { rows: tags } = await sql<{ id: number; questions: number; answers: number }>`
    SELECT t.tag_id AS id, count(DISTINCT t.question_id)::int AS questions, count(v.id)::int AS answers
    FROM question_tags t JOIN question_votes v ON v.question_id = t.question_id
    GROUP BY t.tag_id ORDER BY answers DESC LIMIT 1`.execute(db)
  await db.deleteFrom('opinion_group_runs').execute()
  await db.deleteFrom('opinion_group_places').execute()
  // People of the seed answer the collection's likert questions they have not answered yet.
  const { rows: open } = await sql<{ user_id: number; question_id: number }>`
    SELECT u.id AS user_id, i.question_id FROM question_collection_items i
    JOIN questions q ON q.id = i.question_id AND q.subtype <> 'mcq' AND q.publish
    CROSS JOIN LATERAL (SELECT id FROM users ORDER BY id DESC LIMIT ${answers}) u
    WHERE i.parent_id = ${collections[0].id}
      AND NOT EXISTS (SELECT 1 FROM question_votes v WHERE v.question_id = i.question_id AND v.user_id = u.id)
    ORDER BY u.id, i.question_id LIMIT ${answers}`.execute(db)
  const people = [...new Set(open.map((o) => o.user_id))]
  const tokens = await tokensFor(db, people)
  const tokenOf = new Map(people.map((id, i) => [id, tokens[i]]))
  await handle.close()

  const service = await startService({ DATABASE_URL: url, OPINION_GROUPS_REFRESH_MS: String(REFRESH_MS) }, Number(values.port))
  const peak = sampleResidentPeak(service.process.pid!)
  const rows: Record<string, unknown>[] = []
  try {
    for (const [scope, picked] of [
      ['collection', collections[0]],
      ['tag', tags[0]],
    ] as const) {
      const path = `/api/opinion_groups/?${scope}=${picked.id}`
      const started = performance.now()
      const first = await fetch(`${service.url}${path}`)
      const body = Buffer.from(await first.arrayBuffer())
      const computeMs = performance.now() - started
      const groups = JSON.parse(body.toString())
      const limit = await startLimitServer(body, 'application/json; charset=utf-8')
      try {
        const load = { connections: 16, duration }
        const atLimit = await runLoad({ url: `${limit.url}${path}`, ...load })
        const served = await runLoad({ url: `${service.url}${path}`, ...load })
        rows.push({
          scope,
          id: picked.id,
          questions: picked.questions,
          answers: picked.answers,
          participants: groups.participants,
          groups: groups.group_count.k,
          first_request_ms: round(computeMs, 0),
          kept_req_s: served.requests_per_s,
          limit_req_s: atLimit.requests_per_s,
          ratio: round(served.requests_per_s / atLimit.requests_per_s, 4),
          p99_ms: served.p99_ms,
        })
      } finally {
        await limit.stop()
      }
    }
    // Freshness: the answers go in, then the groups are asked for until they count them.
    const before = await (await fetch(`${service.url}/api/opinion_groups/?collection=${collections[0].id}`)).json()
    const posting = performance.now()
    for (const { user_id, question_id } of open) {
      const response = await fetch(`${service.url}/api/question_votes/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Token ${tokenOf.get(user_id)}` },
        body: JSON.stringify({ object_id: question_id, value: 1 + (user_id % 5), private: false }),
      })
      if (!response.ok) throw new Error(`an answer was refused: ${response.status} ${await response.text()}`)
    }
    const posted = performance.now()
    let after = before
    while (after.answers_counted < before.answers_counted + open.length && performance.now() - posted < 120_000) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      after = await (await fetch(`${service.url}/api/opinion_groups/?collection=${collections[0].id}`)).json()
    }
    const report = {
      at: new Date().toISOString(),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}`,
      refresh_ms: REFRESH_MS,
      scopes: rows,
      freshness: {
        answers: open.length,
        posting_s: round((posted - posting) / 1000, 1),
        counted: after.answers_counted - before.answers_counted,
        seconds_after_last_answer: round((performance.now() - posted) / 1000, 2),
      },
      service_peak_rss_mib: peak(),
    }
    console.log(JSON.stringify(report, null, 2))
  } finally {
    await service.stop()
  }
}
