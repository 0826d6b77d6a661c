import { releaseSiblings, releaseTree, releaseWhole, type Headcount, type Release } from '../../disclosure/release.ts'

/**
 * How the breakdowns (question_demographics, question_geographics) and the weighted results decide what they show,
 * on top of src/disclosure/release.ts. docs/results.md, "What is withheld", says why.
 */

export const noOne = (): Headcount => ({ public: 0, private: 0 })

export function addTo(count: Headcount, isPrivate: boolean, n: number): void {
  if (isPrivate) count.private += n
  else count.public += n
}

export interface Node<K> {
  key: K
  count: Headcount
  children: Node<K>[]
}

/** releaseTree over the breakdowns' trees (a withheld group's children are released as under a shown one). */
export function releaseNested<K>(root: Node<K>, k: number, wholeRoot: boolean): Map<K, Release> {
  return releaseTree(root, k, { wholeRoot })
}

/**
 * The cells the weighting works in: age band at answering (null: unknown) x region (null: none). Weighted figures
 * give each cell its own weight, so a reader who knows the census and the public answers can solve them for each
 * cell's answers; a cell's private answers therefore count (in every breakdown, so that none can be subtracted
 * from another) only when the cell holds at least k of them and what the cells leave out of the question does too.
 */
export const cellKey = (band: number | null, region: number | null) => `${band ?? '-'}:${region ?? '-'}`

export interface AnswerGroup {
  band: number | null
  region: number | null
  private: boolean
  count: number
}

export interface QuestionScope {
  /** Every current answer of the question (skips included). */
  root: Headcount
  /** The question's own figures: its private answers count from the k-th. */
  rootRelease: Release
  /** Whether answers of this cell and privacy count in the breakdowns (a public answer always does). */
  counts(group: Pick<AnswerGroup, 'band' | 'region' | 'private'>): boolean
}

export function questionScope(groups: Iterable<AnswerGroup>, k: number): QuestionScope {
  const root = noOne()
  const cells = new Map<string, Headcount>()
  for (const group of groups) {
    const n = Number(group.count)
    addTo(root, group.private, n)
    const key = cellKey(group.band, group.region)
    const cell = cells.get(key) ?? noOne()
    addTo(cell, group.private, n)
    cells.set(key, cell)
  }
  const rootRelease = releaseWhole(root, k)
  const keys = [...cells.keys()].sort()
  const releases = releaseSiblings(
    keys.map((key) => cells.get(key)!),
    k,
    { count: root, release: rootRelease },
  )
  const counted = new Set(keys.filter((_, i) => releases[i].withPrivate))
  return {
    root,
    rootRelease,
    counts: (group) => !group.private || counted.has(cellKey(group.band, group.region)),
  }
}
