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
import { adjustedRandIndex, computeOpinionGroups } from '../src/engines/opinion-groups/index.ts'
import { generate, SCALES, type Scale } from './opinion-groups/planted.ts'

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
