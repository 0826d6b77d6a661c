import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'
import { isDatabaseEmpty, seedDatabase } from '../../src/seed/seed.ts'
import { databaseFromTemplate } from '../helpers/databases.ts'

const TABLES = [
  'users',
  'areas',
  'politicians',
  'tags',
  'questions',
  'question_choices',
  'question_tags',
  'question_votes',
  'question_choice_votes',
  'comments',
  'comment_votes',
  'question_collections',
  'question_collection_items',
  'census_data',
  'groups',
  'group_memberships',
]

/** One digest per table over every row, in id order. */
async function fingerprint(db: Kysely<Database>): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const table of TABLES) {
    const row = await sql<{
      digest: string
    }>`SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t.id), '')) AS digest FROM ${sql.table(table)} t`.execute(db)
    out[table] = row.rows[0].digest
  }
  return out
}

async function seeded(seed: number) {
  const handle = await databaseFromTemplate('empty')
  assert.equal(await isDatabaseEmpty(handle.db), true)
  const summary = await seedDatabase(handle.db, { scale: 'tiny', seed, force: false })
  return { handle, summary }
}

test('the same seed gives the same data, ids included; another seed gives other data', async () => {
  const a = await seeded(42)
  const b = await seeded(42)
  const c = await seeded(43)
  try {
    assert.deepEqual(a.summary, b.summary)
    assert.ok(a.summary.users > 0 && a.summary.questions > 0 && a.summary.votes > 0)
    // Every stored figure, the unreleased counts of private answers included (set once the answers are in), equals
    // its recomputation from the seeded rows, and some private answers are still waiting for their batch.
    assert.deepEqual(await storedFigureDifferences(a.handle.db), [])
    const waiting = await sql<{ n: number }>`SELECT count(*)::int AS n FROM unreleased_answers`.execute(a.handle.db)
    assert.ok(waiting.rows[0].n > 0, 'some private answers wait for their batch')
    const [fa, fb, fc] = await Promise.all([fingerprint(a.handle.db), fingerprint(b.handle.db), fingerprint(c.handle.db)])
    assert.deepEqual(fa, fb)
    assert.notEqual(fa.questions, fc.questions)
    assert.notEqual(fa.question_votes, fc.question_votes)
  } finally {
    await Promise.all([a.handle.close(), b.handle.close(), c.handle.close()])
  }
})

test('seeding a non-empty database is refused unless forced', async () => {
  const { handle } = await seeded(1)
  try {
    await assert.rejects(
      seedDatabase(handle.db, { scale: 'tiny', seed: 1, force: false }),
      (error: Error) => error.name === 'DatabaseNotEmpty' || /not empty/i.test(error.message),
    )
    const before = await fingerprint(handle.db)
    const summary = await seedDatabase(handle.db, { scale: 'tiny', seed: 1, force: true })
    assert.ok(summary.users > 0)
    assert.deepEqual(await fingerprint(handle.db), before, 'forcing the same seed rebuilds the same data')
  } finally {
    await handle.close()
  }
})

test('census records are population pyramids: 91 single years that add up to all_ages', async () => {
  const { handle } = await seeded(5)
  try {
    const rows = await handle.db.selectFrom('census_data').select(['ages', 'all_ages', 'code']).execute()
    assert.ok(rows.length >= 13, 'the UK and its 12 regions and nations')
    for (const row of rows) {
      const ages = row.ages as number[]
      assert.equal(ages.length, 91)
      assert.equal(
        ages.reduce((a, b) => a + b, 0),
        row.all_ages,
        row.code,
      )
      const young = ages.slice(20, 40).reduce((a, b) => a + b, 0) / 20
      const old = ages.slice(85, 90).reduce((a, b) => a + b, 0) / 5
      assert.ok(young > old * 2, `${row.code}: fewer people at 85-89 than at 20-39`)
    }
  } finally {
    await handle.close()
  }
})
