import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { REFUSALS, refusalError } from '../../src/modules/votes/vote-rules.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * The answering rules live in the database; TypeScript keeps only the map from the names they return to DRF's
 * messages. Every name the functions can return is read back from their text and must be mapped, and every name
 * mapped must be one they return.
 */
const ANSWERING = ['cast_likert_moves', 'cast_pick_moves', 'edit_answer', 'withdraw_answer', 'lock_answerable_question', 'window_refusal']
const WRITTEN = ['written', 'replaced', 'edited', 'withdrawn']
/** A cast's first answer left for its group to insert (migration 061), which tells it as 'written'. */
const LEFT_TO_THE_GROUP = ['lone']

let t: TestApp
before(async () => (t = await createTestApp('empty')))
after(() => t.close())

test('the refusal names the answering functions return are exactly those vote-rules.ts maps', async () => {
  const { rows } = await sql<{ name: string; body: string }>`
    SELECT p.proname AS name, pg_get_functiondef(p.oid) AS body FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.proname = ANY(${ANSWERING})`.execute(t.database.db)
  assert.deepEqual(rows.map((row) => row.name).sort(), [...ANSWERING].sort(), 'every answering function is there')
  // An outcome is assigned (`refusal := 'x'`, `outcome := 'x'`), chosen in a CASE (`THEN 'x'`) or returned (`SELECT 'x',`).
  const named = new Set<string>()
  for (const { body } of rows) {
    for (const match of body.matchAll(/(?:(?:refusal|outcome)\s*:=\s*|THEN\s+|SELECT\s+)'([a-z_]+)'/g)) named.add(match[1])
  }
  assert.deepEqual([...named].sort(), [...REFUSALS, ...WRITTEN, ...LEFT_TO_THE_GROUP].sort())
})

test('each refusal answers a DRF-shaped error naming its field', () => {
  const field = { collection: 'collection', value_required: 'value' } as Record<string, string>
  for (const refusal of REFUSALS) {
    const error = refusalError(refusal, { objectId: 7, collection: 9, windowField: 'object_id' })
    assert.equal(error.statusCode, 400, refusal)
    const body = error.body as Record<string, string[]>
    assert.deepEqual(Object.keys(body), [field[refusal] ?? 'object_id'], refusal)
    assert.ok(typeof body[Object.keys(body)[0]][0] === 'string', refusal)
  }
  assert.equal(refusalError('missing', { objectId: null, windowField: 'value' }).statusCode, 404, 'an answer named by its URL')
  assert.deepEqual(refusalError('closed', { objectId: null, windowField: 'non_field_errors' }).body, {
    non_field_errors: ['Voting on this question is closed.'],
  })
})
