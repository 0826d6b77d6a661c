/**
 * Opinion groups (the Pol.is method) from survey answers, pure: no I/O, no clock, randomness seeded, everything
 * ordered by account id, so the same answers give the same result whatever their order. docs/opinion-groups.md.
 *
 * answers → sparse centred matrix (matrix.ts) → 2 principal components (pca.ts) → positions and the clustered
 * participants (participants.ts) → base clusters and groups, k by silhouette and smoothing (groups.ts) → labels
 * carried from the previous result (stability.ts) → per-group votes (group-votes.ts), representative columns
 * (repness.ts), consensus and divisiveness (consensus.ts).
 */
import { divisiveness, groupInformedConsensus } from './consensus.ts'
import { groupVotes } from './group-votes.ts'
import { bestGroupings, chooseGroupCount } from './groups.ts'
import { buildOpinionMatrix } from './matrix.ts'
import { sparsityAwarePositions, clusteredRows } from './participants.ts'
import { principalComponents, scores } from './pca.ts'
import { groupRepness, selectRepresentative } from './repness.ts'
import { seededRandom } from '../../core/seeded-random.ts'
import { rulesOf, settingsOf } from './settings.ts'
import { labelGroups } from './labels.ts'
import type { OpinionGroup, OpinionGroupOptions, OpinionGroupsResult, OpinionInput, PreviousOpinionGroups } from './types.ts'

export type * from './types.ts'
export { adjustedRandIndex } from './stability.ts'
export { groupInformedConsensus } from './consensus.ts'
export { entryFlags, opinionInput, withZeroedStatements, type GroupQuestion, type QuestionAnswers } from './columns.ts'
export { nearestGroup, placeAccount, projectParticipants } from './placement.ts'
export { polisCodeAt, SERVICE_MAP, type PolisCode } from './polis-map.ts'

/** A separate generator per step, so that one step drawing more numbers never changes another's. */
const streamSeed = (seed: number, step: number) => (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(step + 1, 0x85ebca6b)) >>> 0

/** Plain numbers for the result: no typed arrays, and −0 as 0 so that a JSON round trip changes nothing. */
const plain = (values: ArrayLike<number>) => Array.from(values, (v) => v + 0)

/** The previous components laid over the current columns by key; a new column starts at 0. */
function warmStart(previous: PreviousOpinionGroups | null | undefined, keys: readonly string[]): (Float64Array | null)[] | undefined {
  if (!previous) return undefined
  const before = new Map(previous.columnKeys.map((key, j) => [key, j]))
  return previous.pca.components.map((component) => {
    const start = new Float64Array(keys.length)
    keys.forEach((key, j) => {
      const at = before.get(key)
      if (at !== undefined) start[j] = component[at] ?? 0
    })
    return start.some((v) => v !== 0) ? start : null
  })
}

export function computeOpinionGroups(input: OpinionInput, options: OpinionGroupOptions = {}): OpinionGroupsResult {
  const settings = settingsOf(options)
  const { seed } = settings
  const matrix = buildOpinionMatrix(input, settings.map.missing)
  const columnKeys = input.columns.map((c) => c.key)

  const start = warmStart(options.previous, columnKeys)
  const pca = principalComponents(matrix, {
    tolerance: settings.pcaTolerance,
    maxIterations: settings.pcaMaxIterations,
    start,
    seed: streamSeed(seed, 0),
  })
  const x = sparsityAwarePositions(matrix, scores(matrix, pca.components[0]))
  const y = sparsityAwarePositions(matrix, scores(matrix, pca.components[1]))

  const clustered = clusteredRows(matrix, settings.minAnsweredQuestions, settings.minClustered, settings.map.zeroedCountAsAnswered)
  const positions = { x: Float64Array.from(clustered, (row) => x[row]), y: Float64Array.from(clustered, (row) => y[row]), weight: null }
  const minGroupSize = settings.minGroupSize(clustered.length)
  const starts = settings.starts(clustered.length)
  const { first, candidates } = bestGroupings(positions, {
    baseClusters: Math.min(settings.baseClusters, clustered.length),
    maxGroups: settings.maxGroups,
    groupCount: settings.groupCount,
    groupRestarts: settings.groupRestarts,
    starts,
    random: (step) => seededRandom(streamSeed(seed, step)),
  })
  // Up to one group per base cluster: the size-weighted silhouette is defined there (a base cluster's members sit
  // together), so two camps answering alike within each still make two groups.
  const kMax = Math.min(settings.maxGroups, first.centers.x.length)
  const groupings = candidates.map((c) => c.grouping)
  const choice = chooseGroupCount(
    groupings.filter((g) => g.k <= kMax),
    minGroupSize,
    settings.kSmoothingRuns,
    options.previous?.groupCount.smoothing ?? null,
  )
  // A forced k takes the largest grouping up to it; the smoother still runs, so its state carries on.
  const forced = settings.groupCount
  const picked =
    (forced === null ? candidates.find((c) => c.grouping.k === choice.k) : [...candidates].reverse().find((c) => c.grouping.k <= forced)) ??
    null
  const chosen = picked?.grouping ?? null
  // Without groups, the first start's base clusters.
  const base = picked?.base ?? first
  // Without a grouping (no k splits into groups of the minimum size): one group of everyone clustered.
  const ofBase = chosen ? chosen.ofBase : new Int32Array(base.centers.x.length)
  const groupCount = base.centers.x.length === 0 ? 0 : chosen ? chosen.k : 1

  const { groupOfRow, indexOfGroup, labels, labelsKept, adjustedRand, compared } = labelGroups(
    matrix,
    clustered,
    base.ofParticipant,
    ofBase,
    groupCount,
    options.previous,
  )
  const votes = groupVotes(matrix, groupOfRow, groupCount)
  const repness = groupRepness(votes.agree, votes.disagree, votes.seen)
  const groups: OpinionGroup[] = labels.map((label, g) => {
    let size = 0
    let sumX = 0
    let sumY = 0
    for (let row = 0; row < matrix.rows; row++)
      if (groupOfRow[row] === g) {
        size++
        sumX += x[row]
        sumY += y[row]
      }
    return {
      label,
      size,
      x: sumX / size + 0,
      y: sumY / size + 0,
      agree: plain(votes.agree[g]),
      disagree: plain(votes.disagree[g]),
      seen: plain(votes.seen[g]),
      mean: Array.from(votes.mean[g], (v) => (Number.isNaN(v) ? null : v + 0)),
      representative: selectRepresentative(repness[g], settings.representativeLimit).map((r) => ({
        ...r,
        key: columnKeys[r.column],
        pTest: r.pTest + 0,
        repnessTest: r.repnessTest + 0,
        metric: r.metric + 0,
      })),
    }
  })

  const columns = Array.from({ length: groupCount > 0 ? matrix.columns : 0 }, (_, j) => j)
  return {
    rules: rulesOf(settings, start !== undefined && start.some((s) => s !== null), minGroupSize, kMax, starts),
    columnKeys,
    pca: {
      center: plain(matrix.center),
      missing: settings.map.missing,
      activeColumns: matrix.activeColumns,
      zeroedStatements: matrix.zeroedStatements,
      components: pca.components.map(plain),
      variances: pca.eigenvalues.map((e) => (matrix.rows > 1 ? e / (matrix.rows - 1) : 0)),
      iterations: pca.iterations,
      converged: pca.converged,
    },
    participants: {
      accountIds: plain(matrix.accountIds),
      x: plain(x),
      y: plain(y),
      answeredQuestions: plain(matrix.answeredQuestions),
      group: Array.from(groupOfRow, (g) => (g < 0 ? -1 : labels[g])),
    },
    baseClusters: {
      x: plain(base.centers.x),
      y: plain(base.centers.y),
      size: plain(base.centers.weight!),
      group: Array.from(ofBase, (g) => labels[indexOfGroup[g]]),
    },
    groups,
    perColumn: {
      groupInformedConsensus: columns.map((j) => groupInformedConsensus(votes.agree, votes.seen, j)),
      divisiveness: columns.map((j) => divisiveness(votes.agree, votes.seen, j)),
    },
    groupCount: { k: groupCount, best: choice.best, candidates: choice.candidates, smoothing: choice.smoothing },
    stability: { adjustedRandIndex: adjustedRand, participantsCompared: compared, labelsKept },
  }
}
