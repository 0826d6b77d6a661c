/**
 * Kendall's tau-b, its test and Cramér's V against base R (cor, cor.test with exact = FALSE, chisq.test without
 * continuity correction) on seeded random answers, through test/compare-questions/rank-correlation-check.R: the
 * pure functions on tables of many shapes, and the route on answers stored in the database. Agreement to 1e-12
 * (absolute for tau-b and the p-value, relative for z and χ²). Skipped, saying so, without Rscript, unless
 * REQUIRE_R is set (CI), where that fails.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { cramersV, kendallTauB } from '../../src/engines/statistics/rank-correlation.ts'
import { createTestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { seededRandom } from '../helpers/random.ts'

const SCRIPT = path.resolve('test/compare-questions/rank-correlation-check.R')
const TOLERANCE = 1e-12

const rAvailable = () => spawnSync('Rscript', ['-e', 'invisible(stats::cor)'], { encoding: 'utf8' }).status === 0
const skip: string | false = rAvailable() || process.env.REQUIRE_R ? false : 'Rscript is missing (CI installs R)'

const folders: string[] = []
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })))

const random = seededRandom

interface Pairs {
  label: string
  x: number[]
  y: number[]
  /** Categories 1..rows of x and 1..columns of y (some may stay empty). */
  rows: number
  columns: number
}

/** n people answering on rows x columns categories; y leans on x by `lean` (−1..1), the rest is noise. */
function pairs(label: string, seed: number, n: number, rows: number, columns: number, lean: number): Pairs {
  const rng = random(seed)
  const x: number[] = []
  const y: number[] = []
  for (let i = 0; i < n; i++) {
    const a = 1 + Math.floor(rng() * rows)
    const toward = lean >= 0 ? (a - 1) / Math.max(1, rows - 1) : (rows - a) / Math.max(1, rows - 1)
    const mix = Math.abs(lean) * toward + (1 - Math.abs(lean)) * rng()
    x.push(a)
    y.push(Math.min(columns, 1 + Math.floor(mix * columns + (rng() - 0.5))))
  }
  return { label, x, y: y.map((v) => Math.max(1, v)), rows, columns }
}

function tableOf(data: Pairs): number[][] {
  const counts = Array.from({ length: data.rows }, () => Array<number>(data.columns).fill(0))
  data.x.forEach((a, i) => counts[a - 1][data.y[i] - 1]++)
  return counts
}

interface RFigures {
  tau: number | null
  z: number | null
  p: number | null
  chisq: number | null
  df: number | null
}

/** One Rscript for every data set, then each one's figures. */
function runR(sets: Pairs[]): RFigures[] {
  const dirs = sets.map((data) => {
    const folder = mkdtempSync(path.join(tmpdir(), 'rank-correlation-r-'))
    folders.push(folder)
    writeFileSync(path.join(folder, 'data.csv'), ['x,y', ...data.x.map((a, i) => `${a},${data.y[i]}`)].join('\n') + '\n')
    return folder
  })
  const run = spawnSync('Rscript', [SCRIPT, ...dirs], { encoding: 'utf8' })
  assert.equal(run.status, 0, `Rscript failed: ${run.stderr}`)
  return dirs.map((folder) => {
    const lines = readFileSync(path.join(folder, 'figures.csv'), 'utf8').trim().split('\n').slice(1)
    const values = Object.fromEntries(
      lines.map((line) => line.split(',')).map(([name, value]) => [name, value === 'NA' ? null : Number(value)]),
    )
    return values as unknown as RFigures
  })
}

const near = (ours: number | null, theirs: number | null, scale: number) =>
  ours === null || theirs === null ? ours === theirs : Math.abs(ours - theirs) <= TOLERANCE * scale

function agree(label: string, name: string, ours: number | null, theirs: number | null, relative = false) {
  const scale = relative && theirs !== null ? Math.max(1, Math.abs(theirs)) : 1
  assert.ok(near(ours, theirs, scale), `${label} ${name}: ${ours} against R's ${theirs}`)
}

/** Our figures from the table against R's from the people; V from R's χ² and the categories the people use. */
function compareWithR(data: Pairs, r: RFigures) {
  const counts = tableOf(data)
  const tau = kendallTauB(counts)
  const v = cramersV(counts)
  assert.equal(tau.n, data.x.length)
  agree(data.label, 'tau-b', tau.estimate, r.tau)
  agree(data.label, 'z', tau.z, r.z, true)
  agree(data.label, 'p-value', tau.pValue, r.p)
  agree(data.label, 'chi-square', v.chiSquare, r.chisq, true)
  agree(data.label, 'df', v.df, r.df)
  const smaller = Math.min(new Set(data.x).size, new Set(data.y).size)
  agree(data.label, "Cramér's V", v.estimate, r.chisq === null ? null : Math.sqrt(r.chisq / (data.x.length * (smaller - 1))))
}

test('tau-b, its test and the χ² of random tables agree with R', { skip }, () => {
  const sets = [
    pairs('small, no lean', 1, 12, 5, 5, 0),
    pairs('positive', 2, 80, 5, 5, 0.7),
    pairs('negative', 3, 300, 5, 5, -0.6),
    pairs('weak', 4, 1000, 5, 5, 0.1),
    pairs('strong, large', 5, 3000, 5, 5, 0.95),
    pairs('3 x 7', 6, 150, 3, 7, 0.5),
    pairs('7 x 2', 7, 60, 7, 2, -0.4),
    pairs('empty levels', 8, 40, 5, 5, 0.3),
    { label: 'five distinct', x: [1, 2, 3, 4, 5], y: [2, 1, 4, 3, 5], rows: 5, columns: 5 },
    { label: 'one level of x', x: [3, 3, 3, 3], y: [1, 2, 2, 5], rows: 5, columns: 5 },
  ]
  // Leave levels 2 and 4 of x empty in one set: the table keeps their rows, R's table() drops them.
  const gappy = sets.find((s) => s.label === 'empty levels')!
  gappy.x = gappy.x.map((a) => (a === 2 ? 1 : a === 4 ? 5 : a))
  const figures = runR(sets)
  sets.forEach((data, k) => compareWithR(data, figures[k]))
  assert.equal(figures[9].tau, null, 'R has no tau-b when x has one level')
})

test('the route on stored answers agrees with R', { skip }, async () => {
  const t = await createTestApp('empty')
  try {
    const db = t.database.db
    const author = (await insertUser(db)).id
    const a = (await insertQuestion(db, author, { subtype: 'likert' })).id
    const b = (await insertQuestion(db, author, { subtype: 'likert' })).id
    const data = pairs('stored', 9, 240, 5, 5, 0.5)
    const users = await db
      .insertInto('users')
      .values(
        data.x.map((_, i) => ({
          username: `rank-${process.pid}-${i}`,
          email: `rank-${process.pid}-${i}@example.net`,
          first_name: 'R',
          last_name: 'Check',
        })),
      )
      .returning('id')
      .execute()
    // Fifty private answers a question: ten whole batches of five (docs/privacy.md, Batches), so every one counts.
    const votes = (question: number, values: number[]) =>
      values.map((value, i) => ({ user_id: users[i].id, question_id: question, value, skipped: false, private: i < 200 && i % 4 === 0 }))
    await db.insertInto('question_votes').values(votes(a, data.x)).execute()
    await db.insertInto('question_votes').values(votes(b, data.y)).execute()
    // People who answered only one question, or skipped the other, are not in R's data.
    const extra = await insertUser(db)
    await db.insertInto('question_votes').values({ user_id: extra.id, question_id: a, value: 5, skipped: false }).execute()
    await db.insertInto('question_votes').values({ user_id: extra.id, question_id: b, value: null, skipped: true }).execute()

    // At the default cell size: fifty pairs are private, far more than 5, so every pair counts in the figures R checks; cells under 5 are withheld, and a published cell never counts more than the table holds.
    const body = (await t.json(`/api/compare_questions/?questiona=${a}&questionb=${b}`)) as any
    assert.equal(body.respondents, data.x.length)
    const table = tableOf(data)
    assert.ok(body.cells.length > 0)
    for (const cell of body.cells) assert.ok(cell.count >= 5 && cell.count <= table[cell.row][cell.column], JSON.stringify(cell))
    const [r] = runR([data])
    agree('route', 'tau-b', body.correlation.estimate, r.tau)
    agree('route', 'z', body.correlation.z, r.z, true)
    agree('route', 'p-value', body.correlation.p_value, r.p)
    agree('route', 'chi-square', body.association.chi_square, r.chisq, true)
    agree('route', 'df', body.association.df, r.df)
  } finally {
    await t.close()
  }
})
