/**
 * node --import tsx bench/opinion-groups-engine.ts [medium|large]
 * The opinion-groups engine on two synthetic conversations with planted groups, each in a process of its own (so
 * that its peak memory is its own): medium, 7,900 participants × 7,800 columns with 1 M answers (Pol.is's largest
 * published case, bg2050); large, 100,000 × 1,000 with 10 M answers. Prints, per scale, the time of a cold compute
 * and of a warm one (given the cold result as previous), the PCA iterations, k and the adjusted Rand index against
 * the planted groups, and the process's peak resident memory. Targets: 10 s and 60 s, under 512 MiB for the large.
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { adjustedRandIndex, computeOpinionGroups, type OpinionColumn, type OpinionInput } from '../src/engines/opinion-groups/index.ts'
import { seededRandom } from '../src/core/seeded-random.ts'

const SCALES = {
  medium: { participants: 7_900, columns: 7_800, answers: 1_000_000, shares: [4, 3, 2, 1] },
  large: { participants: 100_000, columns: 1_000, answers: 10_000_000, shares: [5, 3, 2, 1, 1] },
} as const
type Scale = keyof typeof SCALES

/**
 * Each planted group leans its own way on each column; an answer is that leaning plus noise, rounded and clipped to
 * −2..2. Columns are picked with a skew (early columns answered more, as in Pol.is), distinct within a row, and
 * each row's answers are in random column order, so the engine's sorting is measured too.
 */
function generate(scale: Scale): { input: OpinionInput; planted: Int32Array } {
  const { participants, columns, answers, shares } = SCALES[scale]
  const random = seededRandom(2026)
  const total = shares.reduce((a, b) => a + b, 0)
  // Two opinion axes: each column loads on both, each group sits at its own angle on the circle of the two, so the
  // planted groups are apart on a 2-D map (independent random leanings would need more dimensions than two).
  const u = Float64Array.from({ length: columns }, () => 2 * random() - 1)
  const w = Float64Array.from({ length: columns }, () => 2 * random() - 1)
  const leaning = shares.map((_, g) => {
    const angle = (2 * Math.PI * g) / shares.length
    return Float64Array.from({ length: columns }, (_, j) => 2 * (Math.cos(angle) * u[j] + Math.sin(angle) * w[j]))
  })
  const participant = new Int32Array(answers)
  const column = new Int32Array(answers)
  const value = new Int8Array(answers)
  const planted = new Int32Array(participants)
  const taken = new Int32Array(columns).fill(-1)
  let at = 0
  for (let i = 0; i < participants; i++) {
    let pick = random() * total
    let g = 0
    while (pick >= shares[g] && g < shares.length - 1) pick -= shares[g++]
    planted[i] = g
    const count = Math.round(((answers - at) / (participants - i)) * (0.5 + random()))
    const wanted = Math.min(count, columns, answers - at - (participants - i - 1))
    for (let c = 0; c < wanted; c++) {
      let j = Math.floor(columns * random() ** 1.5)
      while (taken[j] === i) j = Math.floor(columns * random())
      taken[j] = i
      participant[at] = i
      column[at] = j
      value[at++] = Math.max(-2, Math.min(2, Math.round(leaning[g][j] + (random() + random() + random() - 1.5) * 2)))
    }
  }
  const columnsInfo: OpinionColumn[] = Array.from({ length: columns }, (_, j) => ({ key: `q${j}`, kind: 'likert', question: j }))
  const accountIds = Float64Array.from({ length: participants }, (_, i) => 10 + ((i * 7919) % 1_000_003))
  return {
    input: {
      accountIds,
      columns: columnsInfo,
      answers: { participant: participant.subarray(0, at), column: column.subarray(0, at), value: value.subarray(0, at) },
    },
    planted,
  }
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20)

function runScale(scale: Scale) {
  let started = performance.now()
  const { input, planted } = generate(scale)
  const generateSeconds = (performance.now() - started) / 1000
  const before = process.memoryUsage()
  started = performance.now()
  const cold = computeOpinionGroups(input)
  const coldSeconds = (performance.now() - started) / 1000
  started = performance.now()
  const warm = computeOpinionGroups(input, { previous: cold })
  const warmSeconds = (performance.now() - started) / 1000
  const rowOf = new Map(cold.participants.accountIds.map((id, row) => [id, row]))
  const ours = Array.from(planted, (_, i) => cold.participants.group[rowOf.get(input.accountIds[i])!])
  const clustered = ours.flatMap((g, i) => (g >= 0 ? [i] : []))
  const report = {
    scale,
    participants: input.accountIds.length,
    columns: input.columns.length,
    answers: input.answers.participant.length,
    generate_s: +generateSeconds.toFixed(2),
    cold_s: +coldSeconds.toFixed(2),
    warm_s: +warmSeconds.toFixed(2),
    pca_iterations_cold: cold.pca.iterations,
    pca_iterations_warm: warm.pca.iterations,
    k: cold.groupCount.k,
    planted_k: SCALES[scale].shares.length,
    clustered: clustered.length,
    ari_vs_planted: +adjustedRandIndex(
      clustered.map((i) => planted[i]),
      clustered.map((i) => ours[i]),
    ).toFixed(4),
    warm_same_groups: JSON.stringify(warm.participants.group) === JSON.stringify(cold.participants.group),
    rss_before_engine_mib: mib(before.rss),
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    heap_used_mib: mib(process.memoryUsage().heapUsed),
  }
  console.log(JSON.stringify(report))
}

const scale = process.argv[2] as Scale | undefined
if (scale) {
  if (!(scale in SCALES)) throw new Error(`the scale is one of ${Object.keys(SCALES).join(', ')}`)
  runScale(scale)
} else {
  console.log(`node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, load ${os.loadavg().map((l) => l.toFixed(1))}`)
  for (const each of Object.keys(SCALES)) {
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), each], { stdio: 'inherit' })
    if (child.status !== 0) process.exit(child.status ?? 1)
  }
}
