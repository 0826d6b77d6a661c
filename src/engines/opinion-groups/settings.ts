/** The engine's defaults, and the rules each step follows as the result states them. */
import { SILHOUETTE_MARGIN } from './groups.ts'
import { SERVICE_MAP } from './polis-map.ts'
import type { OpinionGroupOptions, OpinionGroupRules, OpinionMap } from './types.ts'

export interface Settings {
  map: OpinionMap
  groupCount: number | null
  maxGroups: number
  minGroupSize: (clustered: number) => number
  baseClusters: number
  kSmoothingRuns: number
  minAnsweredQuestions: number
  minClustered: number
  pcaTolerance: number
  pcaMaxIterations: number
  groupRestarts: number
  /** Complete starts of the clustering for this many clustered participants. */
  starts: (clustered: number) => number
  representativeLimit: number
  seed: number
}

/**
 * Complete starts of the clustering: 32 at most, and as many as 100,000 participant-runs allow, so a conversation
 * of 3,000 clustered people takes 32 and one of 100,000 or more takes one (each start costs a base k-means over
 * everyone clustered).
 */
const MAX_STARTS = 32
const STARTS_BUDGET = 100_000

const positiveInteger = (value: number | undefined, fallback: number, name: string) => {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} is a positive integer, got ${value}`)
  return value
}

/**
 * Defaults. At most 8 groups: more can no longer be told apart on a map or described one by one, and the
 * group-informed consensus (a product over groups) loses its meaning. At least 5 people in a group, the service's
 * smallest published count (docs/privacy.md), and at least 2% of the clustered participants, below which a "group"
 * in a large conversation is a handful of outliers.
 */
export function settingsOf(options: OpinionGroupOptions): Settings {
  const minGroupSize = options.minGroupSize
  if (minGroupSize !== undefined && !(minGroupSize >= 1)) throw new RangeError(`minGroupSize is at least 1, got ${minGroupSize}`)
  const starts = options.starts === undefined ? undefined : positiveInteger(options.starts, 1, 'starts')
  const tolerance = options.pcaTolerance ?? 1e-11
  if (!(tolerance > 0)) throw new RangeError(`pcaTolerance is positive, got ${tolerance}`)
  const map = options.map ?? SERVICE_MAP
  if (map.missing !== 'mean' && map.missing !== 'zero') throw new RangeError(`map.missing is mean or zero, got ${map.missing}`)
  return {
    map,
    groupCount: options.groupCount === undefined ? null : positiveInteger(options.groupCount, 2, 'groupCount'),
    maxGroups: positiveInteger(options.maxGroups, 8, 'maxGroups'),
    minGroupSize: (clustered) => minGroupSize ?? Math.max(5, Math.ceil(0.02 * clustered)),
    baseClusters: positiveInteger(options.baseClusters, 100, 'baseClusters'),
    kSmoothingRuns: positiveInteger(options.kSmoothingRuns, 4, 'kSmoothingRuns'),
    minAnsweredQuestions: positiveInteger(options.minAnsweredQuestions, 7, 'minAnsweredQuestions'),
    minClustered: positiveInteger(options.minClustered, 15, 'minClustered'),
    pcaTolerance: tolerance,
    pcaMaxIterations: positiveInteger(options.pcaMaxIterations, 3000, 'pcaMaxIterations'),
    groupRestarts: positiveInteger(options.groupRestarts, 16, 'groupRestarts'),
    starts: (clustered) => starts ?? Math.max(1, Math.min(MAX_STARTS, Math.floor(STARTS_BUDGET / Math.max(clustered, 1)))),
    representativeLimit: positiveInteger(options.representativeLimit, 5, 'representativeLimit'),
    seed: options.seed ?? 1,
  }
}

export function rulesOf(s: Settings, warm: boolean, minGroupSize: number, kMax: number, starts: number): OpinionGroupRules {
  return {
    matrix:
      s.map.missing === 'zero'
        ? 'missing cells filled with 0, then centred by the column mean over every participant: one non-zero per answer and a rank-one term, every product O(answers)'
        : 'missing cells filled with the column mean, then centred: one non-zero per answer, every product O(answers)',
    pca: {
      method:
        'power iteration on CᵀC for both components at once, the second deflated against the first (Gram–Schmidt) and the pair rotated to the eigenvectors of their plane (Rayleigh–Ritz)',
      components: 2,
      tolerance: s.pcaTolerance,
      maxIterations: s.pcaMaxIterations,
      start: warm ? 'warm' : 'cold',
      sign: 'the loading of largest magnitude is positive',
    },
    projection:
      "Pol.is's sparsity-aware projection: score over the answered columns × √(active columns / answered columns), zeroed statements counting as answered by everyone in both",
    clustered: {
      minAnsweredQuestions: s.minAnsweredQuestions,
      minClustered: s.minClustered,
      rule:
        (s.map.zeroedCountAsAnswered
          ? 'answered, every zeroed statement counting for everyone,'
          : 'answered, zeroed statements included,') +
        ' ≥ min(minAnsweredQuestions, questions with answers); topped up to minClustered by the most active, then lower account id',
    },
    baseClusters: {
      k: s.baseClusters,
      method: 'Lloyd k-means from a seeded k-means++ start, participants in account-id order; empty clusters dropped',
      starts,
    },
    groups: {
      kMin: s.groupCount ?? 2,
      kMax: s.groupCount ?? kMax,
      minGroupSize,
      restarts: s.groupRestarts,
      method:
        'size-weighted Lloyd k-means of the base centres, best of the seeded k-means++ restarts by within-group squares; of the starts of base clusters, for each k the one of least within-group squares over the participants',
      criterion: s.groupCount
        ? 'k given by the caller'
        : `the smallest k whose size-weighted silhouette over the base clusters is within ${SILHOUETTE_MARGIN} of the highest, among the k whose groups all reach minGroupSize; one group when none does`,
    },
    kSmoothing: { runs: s.kSmoothingRuns, rule: 'the k in use changes once the same new best k has won this many recomputes in a row' },
    labels:
      'groups ordered by size, then lowest account id; with a previous result each keeps the label of the previous group it shares most members with (Hungarian method), others take the smallest free label',
    votes:
      'over the clustered members: likert agree 4–5, disagree 1–2, 3 seen only; choice agree = chosen, disagree = another choice of the question',
    representative:
      "Pol.is's repness: smoothed rates (n + 1)/(n + 2), one- and two-proportion tests both z > 1.2816, ranked by repness × repness test × rate × rate test, best agree first",
    consensus: 'group-informed consensus ∏ over groups of (agree + 1)/(seen + 2)',
    divisiveness: 'largest minus smallest group agree rate (agree + 1)/(seen + 2)',
    stability: 'adjusted Rand index between the previous and the new groups over the participants clustered in both',
    seed: s.seed,
  }
}
