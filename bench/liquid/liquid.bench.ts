import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { resolveQuestions } from '../../src/engines/liquid/liquid.rebuild.ts'
import { recomputeStatistics } from '../../src/engines/figures/recompute.ts'
import { generateLiquidScale, type LiquidScale } from './generate.ts'
import {
  answerChange,
  largestQuestion,
  lowerBoundCost,
  percentile,
  recomputeCost,
  rolledBack,
  tagDelegationChange,
  timed,
} from './measure.ts'

/** The liquid benchmark: generation, full recomputation against its lower bound, single changes against the recomputation they avoid. */
export interface LiquidReport {
  [key: string]: unknown
}

function prng(seed: number) {
  let state = seed >>> 0
  return () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32
}

const ms = (value: number) => Math.round(value * 1000) / 1000

export async function benchLiquid(
  db: Kysely<Database>,
  scale: LiquidScale,
  generate: boolean,
  samples: number,
  changesOnly = false,
): Promise<LiquidReport> {
  const report: LiquidReport = { scale }
  if (generate) {
    console.error('generating')
    report.generate_s = (await timed(() => generateLiquidScale(db, scale))).ms / 1000
    console.error('resolving every delegation and storing the figures')
    report.first_resolution_s = (await timed(() => db.transaction().execute((trx) => resolveQuestions(trx, null, true)))).ms / 1000
    report.recompute_statistics_s = (await timed(() => recomputeStatistics(db))).ms / 1000
    await sql`ANALYZE`.execute(db)
  }
  const counts = await sql<Record<string, number>>`SELECT
    (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM questions)::int AS questions,
    (SELECT count(*) FROM question_votes)::int AS votes, (SELECT count(*) FROM tag_delegations WHERE revoked_at IS NULL)::int AS tag_delegations,
    (SELECT count(*) FROM question_delegations WHERE revoked_at IS NULL)::int AS question_delegations,
    (SELECT max(liquid_weight) FROM question_votes)::int AS largest_weight,
    (SELECT count(*) FROM liquid_blocks)::int AS kept_blocks`.execute(db)
  report.counts = counts.rows[0]

  if (!changesOnly) {
    console.error('full recomputation of every question, and its lower bound')
    const lbAll = await lowerBoundCost(db, null)
    const fullAll = await rolledBack(db, async (trx) => (await timed(() => resolveQuestions(trx, null, false))).ms)
    report.all_questions = {
      lower_bound_ms: ms(lbAll.ms),
      elements: lbAll.elements,
      recompute_ms: ms(fullAll),
      ratio: ms(fullAll / lbAll.ms),
    }

    console.error('the largest question')
    const largest = await largestQuestion(db)
    const lbLargest = await lowerBoundCost(db, [largest])
    const fullLargest = await recomputeCost(db, [largest])
    report.largest_question = {
      id: largest,
      lower_bound_ms: ms(lbLargest.ms),
      elements: lbLargest.elements,
      recompute_ms: ms(fullLargest),
      ratio: ms(fullLargest / lbLargest.ms),
    }
  }

  const random = prng(7)
  const maxUser = (report.counts as Record<string, number>).users
  const questionCount = (report.counts as Record<string, number>).questions

  // Warm every pooled session first: a server's sessions have their function plans cached long before.
  for (let i = 0; i < 8; i++)
    await answerChange(db, 1 + Math.floor(random() * questionCount), 1 + Math.floor(random() * maxUser), 3).catch(() => undefined)
  console.error(`${samples} new answers`)
  const answers: { engine: number; read: number; plain: number; insert: number; ratio: number }[] = []
  for (let i = 0; answers.length < samples && i < samples * 20; i++) {
    const questionId = 1 + Math.floor(random() * questionCount)
    const userId = 1 + Math.floor(random() * maxUser)
    const taken = await db
      .selectFrom('question_votes')
      .select('id')
      .where('question_id', '=', questionId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (taken) continue
    const change = await answerChange(db, questionId, userId, 1 + Math.floor(random() * 5))
    const recompute = answers.length < Math.min(samples, 40) ? await recomputeCost(db, [questionId]) : NaN
    answers.push({
      engine: change.engineMs,
      read: change.blockReadMs,
      plain: change.plainReadMs,
      insert: change.insertMs,
      ratio: change.engineMs / recompute,
    })
  }
  const engine = answers.map((a) => a.engine)
  const ratios = answers.map((a) => a.ratio).filter((r) => !Number.isNaN(r))
  report.answer_change = {
    samples: answers.length,
    engine_p50_ms: ms(percentile(engine, 50)),
    engine_p99_ms: ms(percentile(engine, 99)),
    insert_p50_ms: ms(
      percentile(
        answers.map((a) => a.insert),
        50,
      ),
    ),
    context_read_with_block_p50_ms: ms(
      percentile(
        answers.map((a) => a.read),
        50,
      ),
    ),
    context_read_without_block_p50_ms: ms(
      percentile(
        answers.map((a) => a.plain),
        50,
      ),
    ),
    ratio_to_recompute_p50: percentile(ratios, 50),
    ratio_to_recompute_p99: percentile(ratios, 99),
  }

  console.error(`${samples} tag delegation changes`)
  const { rows: delegations } = await sql<{ user_id: number; tag_id: number }>`
    SELECT user_id, tag_id FROM tag_delegations WHERE revoked_at IS NULL ORDER BY id LIMIT ${samples} OFFSET ${Math.floor(random() * 1000)}`.execute(
    db,
  )
  const tagChanges: { ms: number; questions: number; ratio: number }[] = []
  for (const [i, d] of delegations.entries()) {
    const change = await tagDelegationChange(db, d.user_id, d.tag_id, 1 + Math.floor(random() * 1000))
    const affected =
      i < 10
        ? await recomputeCost(
            db,
            (await db.selectFrom('question_tags').select('question_id').where('tag_id', '=', d.tag_id).execute()).map((r) => r.question_id),
          )
        : NaN
    tagChanges.push({ ms: change.ms, questions: change.questions, ratio: change.ms / affected })
  }
  const tagRatios = tagChanges.map((c) => c.ratio).filter((r) => !Number.isNaN(r))
  report.tag_delegation_change = {
    samples: tagChanges.length,
    p50_ms: ms(
      percentile(
        tagChanges.map((c) => c.ms),
        50,
      ),
    ),
    p99_ms: ms(
      percentile(
        tagChanges.map((c) => c.ms),
        99,
      ),
    ),
    questions_p50: percentile(
      tagChanges.map((c) => c.questions),
      50,
    ),
    ratio_to_recompute_p50: percentile(tagRatios, 50),
    ratio_to_recompute_max: Math.max(...tagRatios),
  }

  console.error('the worst tag')
  const {
    rows: [worst],
  } = await sql<{ tag_id: number; user_id: number }>`
    SELECT td.tag_id, td.user_id FROM tag_delegations td
    WHERE td.revoked_at IS NULL AND td.tag_id = (SELECT tag_id FROM question_tags GROUP BY tag_id ORDER BY count(*) DESC LIMIT 1)
      AND NOT EXISTS (SELECT 1 FROM tag_delegations x WHERE x.trustee_id = td.user_id AND x.revoked_at IS NULL)
    ORDER BY td.id LIMIT 1`.execute(db)
  const worstChange = await tagDelegationChange(db, worst.user_id, worst.tag_id, 2)
  const worstQuestions = (await db.selectFrom('question_tags').select('question_id').where('tag_id', '=', worst.tag_id).execute()).map(
    (r) => r.question_id,
  )
  const worstRecompute = await recomputeCost(db, worstQuestions)
  report.worst_tag_change = {
    tag: worst.tag_id,
    questions: worstChange.questions,
    change_ms: ms(worstChange.ms),
    recompute_ms: ms(worstRecompute),
    ratio: worstChange.ms / worstRecompute,
  }

  console.error('the largest hub answers')
  const {
    rows: [hub],
  } = await sql<{ trustee_id: number; delegators: number }>`
    SELECT trustee_id, count(*)::int AS delegators FROM tag_delegations WHERE revoked_at IS NULL AND trustee_id IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 1`.execute(
    db,
  )
  const {
    rows: [hubQuestion],
  } = await sql<{ question_id: number }>`
    SELECT qt.question_id FROM question_tags qt JOIN tag_delegations td ON td.tag_id = qt.tag_id AND td.trustee_id = ${hub.trustee_id} AND td.revoked_at IS NULL
    WHERE NOT EXISTS (SELECT 1 FROM question_votes v WHERE v.question_id = qt.question_id AND v.user_id = ${hub.trustee_id})
    GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`.execute(db)
  const hubChange = await answerChange(db, hubQuestion.question_id, hub.trustee_id, 4)
  const hubRecompute = await recomputeCost(db, [hubQuestion.question_id])
  report.hub_answer = {
    trustee: hub.trustee_id,
    delegators: hub.delegators,
    question: hubQuestion.question_id,
    engine_ms: ms(hubChange.engineMs),
    kept_ms: ms(hubChange.keptMs),
    recompute_ms: ms(hubRecompute),
    ratio: hubChange.engineMs / hubRecompute,
  }
  report.peak_rss_mb = Math.round(process.resourceUsage().maxRSS / 1024)
  return report
}
