/**
 * The engine's principal components and k-means against base R, through test/opinion-groups/opinion-groups-check.R:
 * loadings, scores and the sparsity-aware projection against prcomp on the filled, centred matrix (to 1e-9, up to
 * each component's sign), and Lloyd against kmeans(algorithm = "Lloyd") from the same start centres (the same
 * clusters and iterations, the same centres to 1e-12). Skipped, saying so, without Rscript, unless REQUIRE_R is set
 * (CI), where that fails.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { computeOpinionGroups, SERVICE_MAP, type OpinionInput, type OpinionMap } from '../../src/engines/opinion-groups/index.ts'
import { kMeansPlusPlus, lloyd, type Points } from '../../src/engines/opinion-groups/kmeans.ts'
import { buildOpinionMatrix } from '../../src/engines/opinion-groups/matrix.ts'
import { principalComponents, scores } from '../../src/engines/opinion-groups/pca.ts'
import { seededRandom } from '../helpers/random.ts'
import { loadPolisConversation } from './polis-data.ts'
import { plantedConversation } from './synthetic.ts'

const SCRIPT = path.resolve('test/opinion-groups/opinion-groups-check.R')
const PCA_TOLERANCE = 1e-9
const CENTRE_TOLERANCE = 1e-12

const rAvailable = () => spawnSync('Rscript', ['-e', 'invisible(stats::prcomp)'], { encoding: 'utf8' }).status === 0
const skip: string | false = rAvailable() || process.env.REQUIRE_R ? false : 'Rscript is missing (CI installs R)'

const folders: string[] = []
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })))

function newFolder(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'opinion-groups-r-'))
  folders.push(folder)
  return folder
}

const csv = (header: string, rows: (string | number)[][]) => [header, ...rows.map((r) => r.join(','))].join('\n') + '\n'
const readCsv = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(',').map(Number))

function runR(dirs: string[]) {
  const run = spawnSync('Rscript', [SCRIPT, ...dirs], { encoding: 'utf8' })
  assert.equal(run.status, 0, `Rscript failed: ${run.stderr}`)
}

/** Answers written with 1-based rows in the engine's row order (ascending account id). */
function writePca(input: OpinionInput, map: OpinionMap): string {
  const folder = newFolder()
  const rowOf = new Map(Array.from(buildOpinionMatrix(input).accountIds, (id, row) => [id, row]))
  const { participant, column, value } = input.answers
  const rows = Array.from({ length: participant.length }, (_, a) => [
    rowOf.get(input.accountIds[participant[a]])! + 1,
    column[a] + 1,
    value[a],
  ])
  writeFileSync(path.join(folder, 'answers.csv'), csv('row,column,value', rows))
  const size = [input.accountIds.length, input.columns.length, map.missing, input.zeroed?.statements ?? 0]
  writeFileSync(path.join(folder, 'size.csv'), csv('rows,columns,fill,zeroed', [size]))
  return folder
}

/** Largest |ours − sign·R| over the entries, sign chosen so the vectors point the same way. */
function deviation(ours: ArrayLike<number>, theirs: number[]): number {
  let along = 0
  for (let i = 0; i < theirs.length; i++) along += ours[i] * theirs[i]
  const sign = along < 0 ? -1 : 1
  let largest = 0
  for (let i = 0; i < theirs.length; i++) largest = Math.max(largest, Math.abs(ours[i] - sign * theirs[i]))
  return largest
}

const polis = (name: string) => {
  const conversation = loadPolisConversation(name)
  return {
    label: `Pol.is ${name}, its map ${JSON.stringify(conversation.code.map)}`,
    input: conversation.input,
    map: conversation.code.map,
  }
}

const pcaSets = (): { label: string; input: OpinionInput; map: OpinionMap }[] => [
  { label: 'planted 3 groups, 120 × 15 likert + 3 choice', input: plantedConversation(11, 120, 15, [3, 2, 1]).input, map: SERVICE_MAP },
  { label: 'planted 2 groups, 400 × 40, sparse', input: plantedConversation(12, 400, 40, [1, 1], 0.3).input, map: SERVICE_MAP },
  { label: 'planted 5 groups, 250 × 25', input: plantedConversation(13, 250, 25, [1, 1, 1, 1, 1]).input, map: SERVICE_MAP },
  {
    label: 'planted 2 groups, 300 × 20, sparse, missing as 0',
    input: plantedConversation(14, 300, 20, [2, 1], 0.4).input,
    map: { missing: 'zero', zeroedCountAsAnswered: false },
  },
  {
    label: 'Pol.is 15-per-hour-seattle, the service map',
    input: loadPolisConversation('15-per-hour-seattle').serviceInput,
    map: SERVICE_MAP,
  },
  polis('15-per-hour-seattle'),
  polis('scoop-hivemind.ubi'),
]

/** prcomp's scores C v: over the answered cells, plus each missing cell's centred value (−centre when missing is 0). */
function fullScores(matrix: ReturnType<typeof buildOpinionMatrix>, v: Float64Array): Float64Array {
  const sparse = scores(matrix, v)
  if (!matrix.missing) return sparse
  let everyMissing = 0
  for (let j = 0; j < v.length; j++) everyMissing += matrix.missing[j] * v[j]
  return sparse.map((s, row) => {
    let answered = 0
    for (let k = matrix.rowStart[row]; k < matrix.rowStart[row + 1]; k++)
      answered += matrix.missing![matrix.column[k]] * v[matrix.column[k]]
    return s + everyMissing - answered
  })
}

test('components, scores and positions equal prcomp on the filled, centred matrix', { skip }, (t) => {
  const sets = pcaSets().map((set) => ({ ...set, folder: writePca(set.input, set.map) }))
  runR(sets.map((s) => s.folder))
  for (const { label, input, map, folder } of sets) {
    const matrix = buildOpinionMatrix(input, map.missing)
    const pca = principalComponents(matrix, { tolerance: 1e-11, maxIterations: 20000, seed: 5 })
    assert.ok(pca.converged, `${label}: power iteration converged`)
    const loadings = readCsv(path.join(folder, 'pca.csv'))
    const rScores = readCsv(path.join(folder, 'scores.csv'))
    const sdev = readCsv(path.join(folder, 'sdev.csv')).map(([s]) => s)
    const result = computeOpinionGroups(input, { seed: 5, pcaMaxIterations: 20000, map })
    const worst = { loadings: 0, scores: 0, positions: 0, variance: 0 }
    for (let c = 0; c < 2; c++) {
      worst.loadings = Math.max(
        worst.loadings,
        deviation(
          pca.components[c],
          loadings.map((r) => r[c]),
        ),
      )
      worst.scores = Math.max(
        worst.scores,
        deviation(
          fullScores(matrix, pca.components[c]),
          rScores.map((r) => r[c]),
        ),
      )
      const positions = c === 0 ? result.participants.x : result.participants.y
      worst.positions = Math.max(
        worst.positions,
        deviation(
          positions,
          rScores.map((r) => r[2 + c]),
        ),
      )
      const variance = pca.eigenvalues[c] / (matrix.rows - 1)
      worst.variance = Math.max(worst.variance, Math.abs(variance - sdev[c] ** 2) / sdev[c] ** 2)
    }
    t.diagnostic(`${label}: ${pca.iterations} iterations, largest deviation from R: ${JSON.stringify(worst)}`)
    for (const [name, value] of Object.entries(worst)) assert.ok(value <= PCA_TOLERANCE, `${label} ${name}: ${value} from R`)
  }
})

interface LloydSet {
  label: string
  points: Points
  k: number
}

function blobs(seed: number, n: number, centres: [number, number][], spread: number): Points {
  const random = seededRandom(seed)
  const x = new Float64Array(n)
  const y = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const [cx, cy] = centres[i % centres.length]
    x[i] = cx + (random() + random() + random() - 1.5) * spread
    y[i] = cy + (random() + random() + random() - 1.5) * spread
  }
  return { x, y, weight: null }
}

function lloydSets(): LloydSet[] {
  const seattle = computeOpinionGroups(loadPolisConversation('15-per-hour-seattle').input)
  const grouped = seattle.participants.group.flatMap((g, i) => (g >= 0 ? [i] : []))
  const weighted = blobs(
    22,
    60,
    [
      [0, 0],
      [3, 1],
      [1, 4],
    ],
    2.5,
  )
  weighted.weight = Float64Array.from({ length: 60 }, (_, i) => 1 + (i % 5))
  return [
    {
      label: '300 points, 4 blobs, k = 4',
      points: blobs(
        21,
        300,
        [
          [0, 0],
          [4, 0],
          [0, 4],
          [4, 4],
        ],
        3,
      ),
      k: 4,
    },
    {
      label: '300 points, 4 blobs, k = 7',
      points: blobs(
        23,
        300,
        [
          [0, 0],
          [4, 0],
          [0, 4],
          [4, 4],
        ],
        3,
      ),
      k: 7,
    },
    { label: '60 weighted points, k = 3', points: weighted, k: 3 },
    {
      label: 'Pol.is seattle positions, k = 100 (base clusters)',
      points: {
        x: Float64Array.from(grouped, (i) => seattle.participants.x[i]),
        y: Float64Array.from(grouped, (i) => seattle.participants.y[i]),
        weight: null,
      },
      k: 100,
    },
  ]
}

test('Lloyd k-means equals R kmeans(algorithm = "Lloyd") from the same start', { skip }, (t) => {
  const sets = lloydSets().map((set, s) => {
    const start = kMeansPlusPlus(set.points, set.k, seededRandom(40 + s))
    const folder = newFolder()
    const { x, y, weight } = set.points
    writeFileSync(
      path.join(folder, 'points.csv'),
      csv(
        'x,y,times',
        Array.from(x, (_, i) => [x[i], y[i], weight ? weight[i] : 1]),
      ),
    )
    writeFileSync(
      path.join(folder, 'start.csv'),
      csv(
        'x,y',
        start.x.map((_, j) => [start.x[j], start.y[j]]),
      ),
    )
    return { ...set, start, folder }
  })
  runR(sets.map((s) => s.folder))
  for (const { label, points, start, folder } of sets) {
    const ours = lloyd(points, start.x, start.y, 100)
    const clusters = readCsv(path.join(folder, 'clusters.csv')).map(([c]) => c - 1)
    const centres = readCsv(path.join(folder, 'centers.csv'))
    const [[iterations]] = readCsv(path.join(folder, 'iter.csv'))
    assert.ok(ours.converged, `${label}: converged`)
    assert.deepEqual(Array.from(ours.cluster), clusters, `${label}: clusters`)
    assert.equal(ours.iterations, iterations, `${label}: iterations`)
    let worst = 0
    centres.forEach(([cx, cy], j) => {
      if (Number.isNaN(cx)) assert.equal(ours.size[j], 0, `${label}: cluster ${j} empty in R only`)
      else worst = Math.max(worst, Math.abs(ours.centerX[j] - cx), Math.abs(ours.centerY[j] - cy))
    })
    const empty = centres.filter(([cx]) => Number.isNaN(cx)).length
    t.diagnostic(`${label}: ${ours.iterations} iterations, ${empty} empty clusters, largest centre deviation ${worst}`)
    assert.ok(worst <= CENTRE_TOLERANCE, `${label}: centres ${worst} from R`)
  }
})
