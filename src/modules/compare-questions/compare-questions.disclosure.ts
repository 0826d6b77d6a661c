import { releaseGroup, releaseSiblings, WITHHELD, type Headcount, type Release } from '../../disclosure/release.ts'

/**
 * What of a cross-tabulation may be shown (docs/statistics.md, "What is published"). The whole table is the root
 * group; its rows and its columns are two families of siblings under it; a cell lies in one row and one column.
 * Pure: the rules of disclosure/release.ts applied to a two-way table.
 */

export interface TableRelease {
  table: Release
  rows: Release[]
  columns: Release[]
  /** cells[i][j]: row i, column j. */
  cells: Release[][]
}

const add = (a: Headcount, b: Headcount): Headcount => ({ public: a.public + b.public, private: a.private + b.private })
const sum = (counts: Headcount[]): Headcount => counts.reduce(add, { public: 0, private: 0 })

/** A cell as a sibling sees it once earlier passes have withheld it or its private pairs. */
const asShown = (count: Headcount, release: Release): Headcount =>
  !release.published ? { public: 0, private: 0 } : release.withPrivate ? count : { public: count.public, private: 0 }

const same = (a: Release, b: Release) => a.published === b.published && a.withPrivate === b.withPrivate

/**
 * Rows and columns are released as siblings under the table. A cell shows its private pairs only when it holds k
 * of them and its row and column show theirs; it is shown only with k pairs shown and its row and column shown (so
 * a withheld margin is never the sum of shown cells). Then, until nothing changes, the cells of the table, of each
 * shown row and of each shown column go through secondary suppression against that total, so that no total less
 * its shown cells holds 1..k-1 pairs or 1..k-1 private pairs. Cells are only ever withheld further, so it ends.
 */
export function releaseTable(cells: Headcount[][], k: number): TableRelease {
  const width = cells[0]?.length ?? 0
  const rowCounts = cells.map(sum)
  const columnCounts = Array.from({ length: width }, (_, j) => sum(cells.map((row) => row[j])))
  const totalCount = sum(rowCounts)
  const table = releaseGroup(totalCount, k)
  if (!table.published)
    return {
      table,
      rows: rowCounts.map(() => WITHHELD),
      columns: columnCounts.map(() => WITHHELD),
      cells: cells.map((row) => row.map(() => WITHHELD)),
    }
  const total = { count: totalCount, release: table }
  const rows = releaseSiblings(rowCounts, k, total)
  const columns = releaseSiblings(columnCounts, k, total)
  const state = cells.map((row, i) =>
    row.map((count, j) => {
      const own = releaseGroup(rows[i].withPrivate && columns[j].withPrivate ? count : { public: count.public, private: 0 }, k)
      return rows[i].published && columns[j].published ? own : WITHHELD
    }),
  )
  const lines: { at: [number, number][]; count: Headcount; release: Release }[] = [
    { at: cells.flatMap((row, i) => row.map((_, j): [number, number] => [i, j])), ...total },
    ...rowCounts.flatMap((count, i) =>
      rows[i].published ? [{ at: Array.from({ length: width }, (_, j): [number, number] => [i, j]), count, release: rows[i] }] : [],
    ),
    ...columnCounts.flatMap((count, j) =>
      columns[j].published ? [{ at: cells.map((_, i): [number, number] => [i, j]), count, release: columns[j] }] : [],
    ),
  ]
  for (let changed = true; changed;) {
    changed = false
    for (const line of lines) {
      const groups = line.at.map(([i, j]) => asShown(cells[i][j], state[i][j]))
      const releases = releaseSiblings(groups, k, { count: line.count, release: line.release })
      line.at.forEach(([i, j], n) => {
        if (same(state[i][j], releases[n])) return
        state[i][j] = releases[n]
        changed = true
      })
    }
  }
  return { table, rows, columns, cells: state }
}
