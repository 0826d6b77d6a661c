/**
 * The weighting arithmetic against R's survey package (svydesign, postStratify, rake, svymean): random data sets
 * and the tiny demo data, through test/statistics/weighting-check.R. Agreement: weights to 1e-9 relative,
 * estimates to 1e-9 absolute, standard errors to 1e-6 absolute (shares are 0..1 and ratings 1..5, so absolute
 * and relative tolerances are of the same order). Skipped, saying so, without Rscript or the survey package,
 * unless REQUIRE_R is set (CI), where that fails.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import {
  postStratificationWeights,
  rakeWeights,
  ratingEstimates,
  trimWeights,
  type Calibration,
  LEVEL_KEYS,
} from '../../src/engines/statistics/weighting.ts'
import { loadQuestion, overallDesign, overallRespondents, overallResult } from '../../src/modules/weighting/weighting.service.ts'
import { createTestApp } from '../helpers/app.ts'
import { seededRandom } from '../helpers/random.ts'

const SCRIPT = path.resolve('test/statistics/weighting-check.R')
const ESTIMATE_TOLERANCE = 1e-9
const SE_TOLERANCE = 1e-6
const WEIGHT_TOLERANCE = 1e-9

function rAvailable(): boolean {
  const probe = spawnSync('Rscript', ['-e', 'suppressPackageStartupMessages(library(survey))'], { encoding: 'utf8' })
  return probe.status === 0
}
const skip: string | false =
  rAvailable() || process.env.REQUIRE_R ? false : 'Rscript or its survey package is missing (CI installs r-cran-survey)'

const folders: string[] = []
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })))

const random = seededRandom

interface DataSet {
  band: number[]
  area: number[]
  rating: number[]
  /** Census population of every cell band x area (key band * 100 + area). */
  population: Map<number, number>
  bands: number
  areas: number
}

/**
 * n respondents over bands x areas: `empty` cells get nobody, `small` ones one or two respondents, the rest
 * are drawn with uneven probabilities; ratings lean by band and area so weighting moves the results.
 */
function dataSet(seed: number, n: number, bands: number, areas: number, empty: number[] = [], small: number[] = []): DataSet {
  const rng = random(seed)
  const population = new Map<number, number>()
  const open: number[] = []
  const chance: number[] = []
  for (let b = 0; b < bands; b++)
    for (let a = 0; a < areas; a++) {
      const key = b * 100 + a
      population.set(key, Math.round(1000 + rng() * 60000))
      if (!empty.includes(key) && !small.includes(key)) {
        open.push(key)
        chance.push(0.2 + rng() * 2)
      }
    }
  const cells: number[] = []
  for (const key of small) for (let k = 0; k < 1 + Math.floor(rng() * 2); k++) cells.push(key)
  for (const key of open) cells.push(key) // at least one in every open cell
  const total = chance.reduce((s, v) => s + v, 0)
  while (cells.length < n) {
    let pick = rng() * total
    let i = 0
    while (pick > chance[i] && i < chance.length - 1) pick -= chance[i++]
    cells.push(open[i])
  }
  const band = cells.map((key) => Math.floor(key / 100))
  const area = cells.map((key) => key % 100)
  const rating = cells.map((key) => {
    const lean = (Math.floor(key / 100) / bands) * 2 + (key % 100) / areas
    return Math.min(5, Math.max(1, Math.round(1 + rng() * 3 + lean - 0.5)))
  })
  return { band, area, rating, population, bands, areas }
}

interface RFigures {
  estimates: Map<string, { estimate: number; se: number }>
  weights: number[]
}

function csv(rows: (string | number)[][]): string {
  return rows.map((row) => row.join(',')).join('\n') + '\n'
}

/** Writes the respondents and the totals of a mode into a folder of their own, for one R run over many. */
function prepareR(
  data: { band: number[]; area: number[]; rating: number[]; w?: number[] },
  mode: 'post' | 'rake' | 'fixed' | 'none',
  totals: { cells?: { band: number; area: number; N: number }[]; band?: Map<number, number>; area?: Map<number, number> } = {},
): RJob {
  const folder = mkdtempSync(path.join(tmpdir(), 'weighting-r-'))
  folders.push(folder)
  const header = data.w ? ['band', 'area', 'rating', 'w'] : ['band', 'area', 'rating']
  const rows = data.rating.map((rating, i) => {
    const row: (string | number)[] = [`b${data.band[i]}`, `a${data.area[i]}`, rating]
    if (data.w) row.push(data.w[i].toPrecision(17))
    return row
  })
  writeFileSync(path.join(folder, 'data.csv'), csv([header, ...rows]))
  if (totals.cells)
    writeFileSync(
      path.join(folder, 'cells.csv'),
      csv([['band', 'area', 'Freq'], ...totals.cells.map(({ band, area, N }) => [`b${band}`, `a${area}`, N])]),
    )
  if (totals.band) writeFileSync(path.join(folder, 'band.csv'), csv([['band', 'Freq'], ...[...totals.band].map(([b, N]) => [`b${b}`, N])]))
  if (totals.area) writeFileSync(path.join(folder, 'area.csv'), csv([['area', 'Freq'], ...[...totals.area].map(([a, N]) => [`a${a}`, N])]))
  return { folder, mode }
}

interface RJob {
  folder: string
  mode: string
}

/** One Rscript for all the jobs (loading the survey package is most of R's time), then each job's figures. */
function runR(jobs: RJob[]): RFigures[] {
  const run = spawnSync('Rscript', [SCRIPT, ...jobs.flatMap(({ folder, mode }) => [folder, mode])], { encoding: 'utf8' })
  assert.equal(run.status, 0, `Rscript failed: ${run.stderr}`)
  return jobs.map(({ folder }) => readFigures(folder))
}

function readFigures(folder: string): RFigures {
  const parse = (file: string) =>
    readFileSync(path.join(folder, file), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',').map((field) => field.replace(/"/g, '')))
  const estimates = new Map(parse('estimates.csv').map(([name, estimate, se]) => [name, { estimate: Number(estimate), se: Number(se) }]))
  return { estimates, weights: parse('weights.csv').map(([w]) => Number(w)) }
}

let worstSe = 0
let worstEstimate = 0

/** Our figures on the same weights and calibration, against R's. */
function compare(label: string, rating: number[], weights: number[], calibration: Calibration, r: RFigures): void {
  assert.equal(r.weights.length, weights.length, `${label}: one weight per respondent`)
  weights.forEach((w, i) =>
    assert.ok(
      Math.abs(w - r.weights[i]) <= WEIGHT_TOLERANCE * Math.abs(r.weights[i]),
      `${label}: weight ${i} ${w} against R's ${r.weights[i]}`,
    ),
  )
  const ours = ratingEstimates(rating, weights, calibration)
  const pairs: [string, number | null, number | null][] = [
    ['mean', ours.mean.estimate, ours.mean.se],
    ...LEVEL_KEYS.map((key): [string, number | null, number | null] => [`share${key}`, ours.shares[key].estimate, ours.shares[key].se]),
  ]
  for (const [name, estimate, se] of pairs) {
    const reference = r.estimates.get(name)!
    assert.ok(reference, `${label}: R printed ${name}`)
    worstEstimate = Math.max(worstEstimate, Math.abs(estimate! - reference.estimate))
    worstSe = Math.max(worstSe, Math.abs(se! - reference.se))
    assert.ok(
      Math.abs(estimate! - reference.estimate) <= ESTIMATE_TOLERANCE,
      `${label} ${name}: ${estimate} against R's ${reference.estimate}`,
    )
    assert.ok(Math.abs(se! - reference.se) <= SE_TOLERANCE, `${label} ${name} SE: ${se} against R's ${reference.se}`)
  }
}

const cellOf = (data: DataSet) => data.band.map((b, i) => b * 100 + data.area[i])
const cellList = (data: DataSet) => [...data.population].map(([key, N]) => ({ band: Math.floor(key / 100), area: key % 100, N }))

function margins(data: DataSet): { band: Map<number, number>; area: Map<number, number> } {
  const band = new Map<number, number>()
  const area = new Map<number, number>()
  for (const [key, N] of data.population) {
    band.set(Math.floor(key / 100), (band.get(Math.floor(key / 100)) ?? 0) + N)
    area.set(key % 100, (area.get(key % 100) ?? 0) + N)
  }
  return { band, area }
}

interface Case {
  label: string
  rating: number[]
  weights: number[]
  calibration: Calibration
  job: RJob
}

/** Every synthetic data set with our weights and R's job, grouped by the test that checks them. */
function syntheticCases(): Record<'post' | 'partial' | 'rake' | 'fixed', Case[]> {
  const post = [11, 12, 13].map((seed): Case => {
    const data = dataSet(seed, 300, 5, 3)
    const cells = cellOf(data)
    const weights = postStratificationWeights(cells, data.population)
    return {
      label: `post ${seed}`,
      rating: data.rating,
      weights,
      calibration: { type: 'post-stratified', cells },
      job: prepareR(data, 'post', { cells: cellList(data) }),
    }
  })
  const partialData = dataSet(21, 250, 4, 4, [0, 102, 303], [201])
  const partialCells = cellOf(partialData)
  const partial: Case = {
    label: 'post partial',
    rating: partialData.rating,
    weights: postStratificationWeights(partialCells, partialData.population),
    calibration: { type: 'post-stratified', cells: partialCells },
    job: prepareR(partialData, 'post', { cells: cellList(partialData) }),
  }
  const rake = [
    dataSet(31, 250, 6, 4, [0, 103, 302, 501], [1, 203, 400]),
    dataSet(32, 400, 8, 5, [4, 100, 204, 703], [2, 301, 602, 700]),
  ].map((data, k): Case => {
    const { band, area } = margins(data)
    const raked = rakeWeights([data.band, data.area], [band, area])
    assert.equal(raked.converged, true, `rake ${k} converges`)
    const calibration: Calibration = { type: 'raked', margins: [data.band, data.area] }
    return { label: `rake ${k}`, rating: data.rating, weights: raked.weights, calibration, job: prepareR(data, 'rake', { band, area }) }
  })
  const data = dataSet(41, 300, 6, 4, [0, 103], [1, 203])
  const { band, area } = margins(data)
  const trimmed = trimWeights(rakeWeights([data.band, data.area], [band, area]).weights, 1.5)
  assert.equal(trimmed.trimmed, true, 'the cap bites')
  const fixed: Case[] = [
    {
      label: 'fixed',
      rating: data.rating,
      weights: trimmed.weights,
      calibration: { type: 'none' },
      job: prepareR({ ...data, w: trimmed.weights }, 'fixed'),
    },
    {
      label: 'unweighted',
      rating: data.rating,
      weights: data.rating.map(() => 1),
      calibration: { type: 'none' },
      job: prepareR(data, 'none'),
    },
  ]
  return { post, partial: [partial], rake, fixed }
}

let cases: ReturnType<typeof syntheticCases>
const figures = new Map<Case, RFigures>()
before(() => {
  if (skip) return
  cases = syntheticCases()
  const all = Object.values(cases).flat()
  runR(all.map((c) => c.job)).forEach((r, i) => figures.set(all[i], r))
})

const check = (group: keyof ReturnType<typeof syntheticCases>) => {
  for (const c of cases[group]) compare(c.label, c.rating, c.weights, c.calibration, figures.get(c)!)
}

test('post-stratified on full cells: weights, mean and shares with their standard errors as R gives them', { skip }, () => check('post'))

test('post-stratified with empty cells left out (R: partial = TRUE)', { skip }, () => check('partial'))

test('raked on the band and area margins, with empty and small cells', { skip }, () => check('rake'))

test('trimmed weights, taken as fixed (svydesign with those weights, no calibration), and unweighted', { skip }, () => check('fixed'))

test(
  'the demo data: the most-answered question, loaded by the routes’ SQL, counted and weighted as the overall result does',
  { skip },
  async () => {
    const app = await createTestApp('tiny')
    try {
      const { rows } = await sql<{ question_id: number }>`
      SELECT question_id FROM question_votes WHERE NOT skipped AND value IS NOT NULL
      GROUP BY question_id ORDER BY count(*) DESC, question_id LIMIT 1`.execute(app.database.db)
      const loaded = await loadQuestion(app.database.db, rows[0].question_id)
      const options = { weightCap: 5, minCellSize: 5 }
      // At the default k the service weights the public answers and only the private ones of age band x region
      // cells it releases (docs/statistics.md): R gets exactly those ratings (design.eligible), not every answer.
      const design = overallDesign(loaded, options)
      const privately = loaded.respondents.filter((r) => r.private).length
      const weighable = overallRespondents(loaded, options).weighable.filter((r) => r.private).length
      console.log(`demo question: ${privately} private answers, ${weighable} of them in cells released with them`)
      const group = design.group!
      assert.ok(group, 'the demo question has weighted respondents')
      const data = { band: design.bandOf, area: design.regionOf, rating: design.eligible }
      // The service keys a cell region * 9 + band (9 age bands).
      const cells = [...design.population].map(([key, N]) => ({ band: key % 9, area: Math.floor(key / 9), N }))
      const job = group.trimmed
        ? prepareR({ ...data, w: group.weights }, 'fixed')
        : group.method === 'raked'
          ? prepareR(data, 'rake', { band: design.bandTargets, area: design.regionTargets })
          : prepareR(data, 'post', { cells })
      const [r] = runR([job])
      console.log(
        `demo question ${rows[0].question_id}: ${design.eligible.length} weighted ratings, ${group.method}${group.partial ? ' (partial)' : ''}${group.trimmed ? ', trimmed' : ''}`,
      )
      compare('demo', design.eligible, group.weights, group.calibration, r)
      // And the result the routes report is those same figures.
      const result = overallResult(loaded, options)
      const mean = r.estimates.get('mean')!
      assert.ok(Math.abs(result.weighted_average_vote! - mean.estimate) <= ESTIMATE_TOLERANCE)
    } finally {
      await app.close()
    }
  },
)

test('report the largest differences seen', { skip }, () => {
  assert.ok(worstEstimate <= ESTIMATE_TOLERANCE && worstSe <= SE_TOLERANCE)
  console.log(`largest difference from R: estimates ${worstEstimate.toExponential(2)}, standard errors ${worstSe.toExponential(2)}`)
})
