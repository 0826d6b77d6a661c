/**
 * The opinion-groups engine's input and output (docs/opinion-groups.md). Input is typed-array friendly: the largest
 * conversation is 100,000 participants × 1,000 columns with 10 M answers. The result holds plain numbers and arrays
 * only (no typed arrays, NaN, Infinity or −0), so it survives JSON unchanged and can come back as `previous`.
 */

/**
 * How a column's answers read as agree / disagree:
 * - `likert`: the value is the rating minus 3 (−2..2); agree when above 0 (4, 5), disagree when below (1, 2), 0 is
 *   a pass (seen, neither). Pol.is votes (1 agree, −1 disagree, 0 pass) read the same way.
 * - `choice`: one column per choice of a multiple-choice question; 1 when the participant chose it (agree), 0 when
 *   they answered the question with another choice (disagree).
 */
export type ColumnKind = 'likert' | 'choice'

export interface OpinionColumn {
  /** The column's identity across recomputes ("q12", "q12:c3"): previous components are matched to columns by it. */
  key: string
  kind: ColumnKind
  /** The question the column belongs to: a participant's answered questions are counted by it. */
  question: number
}

/** One answer per (participant, column), as parallel arrays of the same length. */
export interface OpinionAnswers {
  /** Index into `accountIds`. */
  participant: ArrayLike<number>
  /** Index into `columns`. */
  column: ArrayLike<number>
  /** likert: −2..2; choice: 0 or 1. An unanswered or skipped column has no entry. */
  value: ArrayLike<number>
}

export interface OpinionInput {
  /** The account id of each participant index; all distinct. Everything is ordered by them, not by the index. */
  accountIds: ArrayLike<number>
  columns: readonly OpinionColumn[]
  answers: OpinionAnswers
  /**
   * Statements kept as columns of zeros, as Pol.is keeps the ones moderated out and the meta ones (age, town, sex):
   * they carry no opinion, but count as answered by everyone in the sparsity-aware scaling, and a participant's
   * answers to them count toward being grouped. `statements`: how many have an answer; `answered`: how many of them
   * each participant index answered. A participant may have answered these alone.
   */
  zeroed?: { statements: number; answered: ArrayLike<number> }
}

/**
 * How the map is drawn from the answers. The service's own: missing cells hold the column's mean. Pol.is's code
 * changed over time (polisMapAt in polis-map.ts gives the rules of a date).
 */
export interface OpinionMap {
  /** What a missing cell holds before centring: the column's mean over its answers, or 0. */
  missing: 'mean' | 'zero'
  /** Who is grouped counts every zeroed statement as answered by everyone, rather than their own answers to them. */
  zeroedCountAsAnswered: boolean
}

export interface OpinionGroupOptions {
  /** The previous result of the same conversation: warm start of the components, group labels, k smoothing. */
  previous?: PreviousOpinionGroups | null
  /** How the map is drawn (default: missing cells hold the column's mean, zeroed statements count as answered). */
  map?: OpinionMap
  /** Use this many groups (fewer when the data cannot give them); k's choice and smoother still run and are reported. */
  groupCount?: number
  /** The largest number of groups tried (default 8). */
  maxGroups?: number
  /** The fewest participants a group may have (default: the larger of 5 and 2% of the clustered participants). */
  minGroupSize?: number
  /** Base clusters (default 100, as Pol.is). */
  baseClusters?: number
  /** A new best k replaces the current one once it has won this many recomputes in a row (default 4, as Pol.is). */
  kSmoothingRuns?: number
  /** Answered questions a participant needs to be clustered (default 7, as Pol.is; fewer when there are fewer). */
  minAnsweredQuestions?: number
  /** When fewer qualify, the most active participants are added up to this many (default 15, as Pol.is). */
  minClustered?: number
  /** Estimated error of each unit component at which power iteration stops (default 1e-11). */
  pcaTolerance?: number
  /** Power iteration steps at most (default 3,000). */
  pcaMaxIterations?: number
  /** Restarts of the group-level k-means, each from its own seeded k-means++ start (default 16). */
  groupRestarts?: number
  /**
   * Complete starts of the clustering, base clusters and groups; each k keeps the one of least within-group squares
   * (default: 32, fewer past 3,125 clustered participants, one from 100,000).
   */
  starts?: number
  /** Representative columns per group at most (default 5, as Pol.is). */
  representativeLimit?: number
  /** Seed of every random choice (the start vectors, k-means++); default 1. */
  seed?: number
}

/** What the engine needs from an earlier result: a full `OpinionGroupsResult` (also after a JSON round trip) fits. */
export interface PreviousOpinionGroups {
  columnKeys: readonly string[]
  pca: { components: readonly (readonly number[])[] }
  participants: { accountIds: readonly number[]; group: readonly number[] }
  groupCount: { smoothing: KSmoothingState }
}

/** Pol.is's k smoother, carried from one recompute to the next. */
export interface KSmoothingState {
  /** The best k of the latest recompute. */
  bestK: number
  /** Recomputes in a row, this one included, in which `bestK` was the best. */
  bestKRuns: number
  /** The k in use. */
  k: number
}

/** The rules and parameters each step used, so a stored result says how it was made. */
export interface OpinionGroupRules {
  matrix: string
  pca: { method: string; components: number; tolerance: number; maxIterations: number; start: 'warm' | 'cold'; sign: string }
  projection: string
  clustered: { minAnsweredQuestions: number; minClustered: number; rule: string }
  baseClusters: { k: number; method: string; starts?: number }
  groups: { kMin: number; kMax: number; minGroupSize: number; restarts: number; method: string; criterion: string }
  kSmoothing: { runs: number; rule: string }
  labels: string
  votes: string
  representative: string
  consensus: string
  divisiveness: string
  stability: string
  seed: number
}

export interface OpinionGroupsResult {
  rules: OpinionGroupRules
  /** The columns' keys, in input order: every per-column array below follows it. */
  columnKeys: string[]
  pca: {
    /** Each column's centre: its mean over the answers, or with missing cells as 0 its mean over every participant. */
    center: number[]
    /** What missing cells hold (absent in results kept before it was recorded: the mean). */
    missing?: 'mean' | 'zero'
    /** Columns with at least one answer: with the zeroed statements, the width the sparsity-aware projection scales to. */
    activeColumns: number
    /** Zeroed statements with an answer, counted as answered by everyone (absent in results kept before: 0). */
    zeroedStatements?: number
    /** Two unit loading vectors over the columns (zero when the data have no variance left). */
    components: number[][]
    /** Variance along each component (eigenvalue / (participants − 1)): prcomp's sdev². */
    variances: number[]
    /** Power iteration steps (warm starts on unchanged answers take 2 or 3). */
    iterations: number
    converged: boolean
  }
  /** Every participant of the input, by ascending account id. */
  participants: {
    accountIds: number[]
    /** Position on the map: the sparsity-aware projection. */
    x: number[]
    y: number[]
    answeredQuestions: number[]
    /** The participant's group label; −1 when not clustered (too few answers). */
    group: number[]
  }
  baseClusters: { x: number[]; y: number[]; size: number[]; group: number[] }
  /** By ascending label. */
  groups: OpinionGroup[]
  perColumn: {
    /** Group-informed consensus: ∏ over groups of (agree + 1) / (seen + 2). */
    groupInformedConsensus: number[]
    /** How far apart the groups are: the largest minus the smallest group agree rate (agree + 1) / (seen + 2). */
    divisiveness: number[]
  }
  groupCount: {
    /** The number of groups given. */
    k: number
    /** The best k by the criterion in this recompute (null when no k ≥ 2 was possible). */
    best: number | null
    candidates: GroupCountCandidate[]
    smoothing: KSmoothingState
  }
  stability: {
    /** Adjusted Rand index between the previous and these groups over the participants clustered in both. */
    adjustedRandIndex: number | null
    participantsCompared: number
    /** Groups that kept a previous label. */
    labelsKept: number
  }
}

export interface GroupCountCandidate {
  k: number
  /** Size-weighted silhouette over the base clusters. */
  silhouette: number
  smallestGroup: number
  /** Every group at least the minimum size. */
  eligible: boolean
}

export interface OpinionGroup {
  label: number
  size: number
  /** Mean position of the members. */
  x: number
  y: number
  /** Per column, over the members: agreeing, disagreeing, and answering at all (passes included). */
  agree: number[]
  disagree: number[]
  seen: number[]
  /** Mean value of the members who answered (likert −2..2, choice: share choosing it); null with no answer. */
  mean: (number | null)[]
  representative: RepresentativeColumn[]
}

export interface RepresentativeColumn {
  column: number
  key: string
  /** Whether the group stands out by agreeing or by disagreeing. */
  repfulFor: 'agree' | 'disagree'
  /** Members agreeing (or disagreeing) and members who saw it. */
  nSuccess: number
  nTrials: number
  /** (nSuccess + 1) / (nTrials + 2). */
  pSuccess: number
  /** One-proportion test of pSuccess against ½. */
  pTest: number
  /** pSuccess over the same rate among the other groups. */
  repness: number
  /** Two-proportion test of the group against the other groups. */
  repnessTest: number
  /** repness × repnessTest × pSuccess × pTest: the ranking. */
  metric: number
  /** Pol.is's "best agree" column, put first whether or not it passed the tests. */
  bestAgree: boolean
}
