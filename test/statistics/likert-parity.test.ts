import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { likertFigures, type LevelCounts } from '../../src/engines/statistics/likert.ts'

/**
 * The likert arithmetic is written in both languages on purpose: the database generates the stored figures from the
 * counts (the likert_* functions, docs/database.md), and src/engines/statistics/likert.ts computes the published
 * figures from counts corrected per read, without a round trip. This is what keeps the two one rule: every count
 * vector with 0 to 3 answers at each level (1,024 of them), weighted and extreme ones, to 1e-9, in one statement.
 */
const FIGURES = ['sum', 'value', 'heat', 'consensus', 'polarisation'] as const

function vectors(): LevelCounts[] {
  const all: LevelCounts[] = []
  for (let n = 0; n < 4 ** 5; n++) all.push([0, 1, 2, 3, 4].map((level) => Math.floor(n / 4 ** level) % 4) as unknown as LevelCounts)
  all.push([0.5, 1.5, 0, 2.25, 0], [1000, 1, 0, 0, 999], [10, 0, 0, 3, 1], [0, 0, 7, 0, 0], [123456, 7, 89, 0, 4])
  return all
}

let t: TestApp
before(async () => (t = await createTestApp('empty')))
after(() => t.close())

test('the likert_* functions equal likertFigures on every small count vector', async () => {
  const all = vectors()
  const column = (level: number) => sql`${all.map((counts) => counts[level])}::double precision[]`
  const { rows } = await sql<Record<(typeof FIGURES)[number], number> & { i: number }>`
    SELECT v.i, likert_sum(v.c1, v.c2, v.c3, v.c4, v.c5) AS sum, likert_value(v.c1, v.c2, v.c3, v.c4, v.c5) AS value,
      likert_heat(v.c1, v.c2, v.c3, v.c4, v.c5) AS heat, likert_consensus(v.c1, v.c2, v.c3, v.c4, v.c5) AS consensus,
      likert_polarisation(v.c1, v.c2, v.c3, v.c4, v.c5) AS polarisation
    FROM unnest(${column(0)}, ${column(1)}, ${column(2)}, ${column(3)}, ${column(4)}) WITH ORDINALITY AS v(c1, c2, c3, c4, c5, i)
    ORDER BY v.i`.execute(t.database.db)
  assert.equal(rows.length, all.length)
  for (const row of rows) {
    const counts = all[Number(row.i) - 1]
    const expected = likertFigures(counts)
    for (const name of FIGURES) {
      const got = Number(row[name])
      assert.ok(Math.abs(got - expected[name]) < 1e-9, `${name} of ${counts}: ${got} in SQL, ${expected[name]} in likert.ts`)
    }
  }
})
