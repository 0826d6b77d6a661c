/**
 * Disclosure control: which groups of respondents a published figure may describe, and whether their private
 * answers count in it. Pure: callers count respondents in SQL and pass the counts here. docs/privacy.md gives the
 * promise, the threat model and why these two rules keep it.
 *
 * 1. A group's private answers count in what is shown only when the group holds at least `k` of them. An observer
 *    who knows every public answer can subtract them from any figure; what is left is then either nothing private
 *    or the answers of at least k private respondents together, never one person's.
 * 2. A group is shown only when what is shown counts at least `k` respondents (threshold suppression), and where the
 *    total over the groups is shown too, what the total holds beyond the shown groups (the complement, which anyone
 *    can compute by subtraction) again holds no private answers or at least k of them, and no respondent or at
 *    least k (secondary suppression, smallest groups first).
 */

/** Respondents of one group, split by whether their answer is public. */
export interface Headcount {
  public: number
  private: number
}

/** What may be shown of one group. */
export interface Release {
  /** The group is shown (its row is listed, its figures published). */
  published: boolean
  /** Its private answers count in what is shown; otherwise its figures are those of its public answers. */
  withPrivate: boolean
}

/** A total that is published over a family of groups: its own headcount and what of it is shown. */
export interface PublishedTotal {
  count: Headcount
  release: Release
}

export const WITHHELD: Release = Object.freeze({ published: false, withPrivate: false })

/** Respondents counted in what is shown of a group. */
export function shownCount(count: Headcount, release: Release): number {
  return count.public + (release.withPrivate ? count.private : 0)
}

/** Private answers counted in what is shown of a group. */
export function shownPrivate(count: Headcount, release: Release): number {
  return release.withPrivate ? count.private : 0
}

/** Rule 1 and the threshold of rule 2 for one group on its own (a whole question, a tag, a collection). */
export function releaseGroup(count: Headcount, k: number): Release {
  const withPrivate = count.private >= k
  return { withPrivate, published: count.public + (withPrivate ? count.private : 0) >= k }
}

/** A figure of a whole (a question's own figures): its private answers count once there are k of them, and it is always shown. */
export function releaseWhole(count: Headcount, k: number): Release {
  return { published: true, withPrivate: count.private >= k }
}

/** A complement anyone can compute: negative when siblings overlap, and then it is the overlap, as telling. */
const risky = (amount: number, k: number) => amount !== 0 && Math.abs(amount) < k

/**
 * Rules 1 and 2 for sibling groups under one total. `total` is null when no total over them is published (then
 * each group stands alone). A group never shows private answers its total withholds. Siblings should not share
 * private answers: where they overlap, total minus siblings is minus the overlap, which is checked like any
 * complement by its size, but a mixture of an overlap and people in no sibling can cancel out in a count and still
 * tell by value. Deterministic: ties go to the earlier group.
 */
export function releaseSiblings(groups: readonly Headcount[], k: number, total: PublishedTotal | null): Release[] {
  const releases = groups.map((count) => {
    const release = releaseGroup(count, k)
    if (total && !total.release.withPrivate && release.withPrivate) return releaseGroup({ public: count.public, private: 0 }, k)
    return release
  })
  if (!total || !total.release.published) return releases
  const totalShown = shownCount(total.count, total.release)
  const totalPrivate = shownPrivate(total.count, total.release)
  for (;;) {
    let shown = 0
    let privately = 0
    releases.forEach((release, i) => {
      if (!release.published) return
      shown += shownCount(groups[i], release)
      privately += shownPrivate(groups[i], release)
    })
    if (risky(totalPrivate - privately, k)) {
      // Withholding one more group's private answers (at least k of them) makes the complement's private part at least k.
      const i = smallest(releases, (release, j) => (release.published && release.withPrivate ? groups[j].private : null))
      if (i === -1) break
      const count = groups[i]
      releases[i] = { withPrivate: false, published: count.public >= k }
      continue
    }
    if (risky(totalShown - shown, k)) {
      const i = smallest(releases, (release, j) => (release.published ? shownCount(groups[j], release) : null))
      if (i === -1) break
      releases[i] = { ...releases[i], published: false }
      continue
    }
    break
  }
  return releases
}

/** The index whose measure is smallest among those measured (not null); -1 when none is. */
function smallest(releases: Release[], measure: (release: Release, index: number) => number | null): number {
  let best = -1
  let bestValue = Infinity
  releases.forEach((release, i) => {
    const value = measure(release, i)
    if (value !== null && value < bestValue) {
      best = i
      bestValue = value
    }
  })
  return best
}

/**
 * Leaf cells of a table (counts of one value within a released group, already counting what the group shows): a
 * cell of fewer than k is left out, and where `total` (the sum of every cell) is published, so is the smallest
 * other cell while the left-out cells together hold between 1 and k-1.
 */
export function publishedCells(counts: readonly number[], k: number, total: number | null): boolean[] {
  const groups = counts.map((count) => ({ public: count, private: 0 }))
  const published = total === null ? null : { count: { public: total, private: 0 }, release: { published: true, withPrivate: false } }
  return releaseSiblings(groups, k, published).map((release) => release.published)
}

/**
 * A tree of groups (a question, its age bands, each band's classes...): the root is released on its own (or as a
 * whole, `wholeRoot`), then each node's children as siblings under it. A withheld node's children are released as
 * under a shown one: its figures can still be derived (its parent minus its shown siblings), so what its shown
 * children leave of it must hold no private answer or at least k, like any complement.
 */
export interface GroupTree<K> {
  key: K
  count: Headcount
  children?: GroupTree<K>[]
}

export function releaseTree<K>(root: GroupTree<K>, k: number, options: { wholeRoot?: boolean } = {}): Map<K, Release> {
  const releases = new Map<K, Release>()
  const rootRelease = options.wholeRoot ? releaseWhole(root.count, k) : releaseGroup(root.count, k)
  releases.set(root.key, rootRelease)
  const visit = (node: GroupTree<K>, release: Release) => {
    const children = node.children ?? []
    if (children.length === 0) return
    const childReleases = releaseSiblings(
      children.map((child) => child.count),
      k,
      { count: node.count, release: { published: true, withPrivate: release.withPrivate } },
    )
    children.forEach((child, i) => {
      releases.set(child.key, childReleases[i])
      visit(child, childReleases[i])
    })
  }
  visit(root, rootRelease)
  return releases
}
