import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { foldFigureDeltas } from '../../src/db/answer-gate.ts'
import { sql } from 'kysely'
import { likertFigures } from '../../src/engines/statistics/likert.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { delegationWorld, type Person } from '../delegations/support.ts'
import { assertStoredEqualsRecomputed } from './support.ts'

/**
 * Every answer write is one database call (cast_likert, cast_pick, edit_answer, withdraw_answer), going private and
 * carrying others' votes included, and the stored floats are the database's own, generated from the counts.
 */

let t: TestApp
let w: ReturnType<typeof delegationWorld>
let author: Person

before(async () => {
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1' })
  w = delegationWorld(t)
  author = await w.person()
})
after(() => t.close())

const statements = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-query-count'])
const answer = (who: Person, question: number, body: Record<string, unknown>) =>
  t.send('POST', '/api/question_votes/', { object_id: question, ...body }, who.token)

describe('a first likert answer in one call', () => {
  test('takes one statement beside the token, and so does a replacement', async () => {
    const voter = await w.person()
    const question = await w.question(author.id, [await w.tag()])
    // A token's use is noted now and then (its last_used_at): after a first request, the statements are the answer's own.
    assert.equal((await answer(voter, await w.question(author.id, []), { value: 1 })).statusCode, 201)
    const first = await answer(voter, question, { value: 4, analytics_os: 'linux', importance: 3 })
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(statements(first), 2, 'the token, then the answer')
    const body = first.json()
    assert.deepEqual([body.value, body.skipped, body.object_id], [4, false, question])
    const replaced = await answer(voter, question, { value: 2 })
    assert.equal(replaced.statusCode, 200, replaced.body)
    assert.equal(statements(replaced), 2, 'the token, then the replacement')
    assert.deepEqual(
      [replaced.json().id, replaced.json().value, replaced.json().importance],
      [body.id, 2, 3],
      'the same row, importance kept',
    )
    const skipped = await answer(voter, question, { skipped: true, importance: null })
    assert.equal(skipped.statusCode, 200, skipped.body)
    assert.deepEqual([skipped.json().skipped, skipped.json().importance], [true, null])
    const q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.direct_low, q.direct_high, q.direct_skipped, q.direct_vote_count, q.liquid_skipped], [0, 0, 1, 0, 1])
    const history = await t.database.db
      .selectFrom('question_vote_history')
      .select(['value', 'skipped', 'importance'])
      .where('question_id', '=', question)
      .where('user_id', '=', voter.id)
      .orderBy('id')
      .execute()
    assert.deepEqual(history, [
      { value: 4, skipped: false, importance: 3 },
      { value: 2, skipped: false, importance: 3 },
    ])
    await assertStoredEqualsRecomputed(t.database.db, 'after a first answer and its replacements')
  })

  test('going public counts the block the answer now carries; going private is the same one call', async () => {
    const [trustee, delegator] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.onTag(delegator, topic, trustee)
    assert.equal((await answer(trustee, question, { value: 5, private: true })).statusCode, 201)
    let q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.liquid_maximum, q.liquid_vote_count], [1, 1], 'a private answer carries nobody')
    const shown = await answer(trustee, question, { value: 4, private: false })
    assert.equal(shown.statusCode, 200, shown.body)
    assert.equal(statements(shown), 2)
    q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.liquid_high, q.liquid_maximum, q.liquid_vote_count], [2, 0, 2], 'the public answer carries its delegator')
    const hidden = await answer(trustee, question, { value: 4, private: true })
    assert.equal(hidden.statusCode, 200, hidden.body)
    assert.equal(statements(hidden), 2, 'the latest public answer is found again inside the call')
    q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.liquid_high, q.liquid_vote_count], [1, 1])
    const own = await t.json(`/api/users/${trustee.id}/`, { authorization: `Token ${trustee.token}` })
    assert.equal(own.count_question_votes, 1)
    await assertStoredEqualsRecomputed(t.database.db, 'after going public and private again')
  })

  test('a skip and a private answer count where they should, and the counters follow', async () => {
    const [a, b] = [await w.person(), await w.person()]
    const question = await w.question(author.id, [await w.tag()])
    assert.equal((await answer(a, question, { skipped: true })).statusCode, 201)
    const hidden = await answer(b, question, { value: 5, private: true })
    assert.equal(hidden.statusCode, 201, hidden.body)
    assert.equal(hidden.json().private, true)
    const q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.direct_skipped, q.direct_maximum, q.direct_vote_count], [1, 1, 1])
    const own = await t.json(`/api/users/${b.id}/`, { authorization: `Token ${b.token}` })
    const seen = await t.json(`/api/users/${b.id}/`)
    assert.deepEqual([own.count_question_votes, seen.count_question_votes], [1, 0], 'a private answer counts for its author only')
    await assertStoredEqualsRecomputed(t.database.db, 'after a skip and a private answer')
  })

  test('a delegator answering first takes their weight off their representative, in the one call', async () => {
    const [delegator, representative] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.onTag(delegator, topic, representative)
    await w.answer(representative, question, 2)
    let q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.liquid_low, q.liquid_vote_count], [2, 2], 'the representative carries the delegator')
    const own = await answer(delegator, question, { value: 5 })
    assert.equal(own.statusCode, 201, own.body)
    assert.equal(statements(own), 2, 'a voter who carries nobody answers in one call')
    q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.liquid_low, q.liquid_maximum, q.liquid_vote_count], [1, 1, 2])
    await assertStoredEqualsRecomputed(t.database.db, 'after the delegator answered')
  })

  test('refusals name the field and write nothing', async () => {
    const voter = await w.person()
    const closed = await w.question(author.id, [])
    await t.database.db
      .updateTable('questions')
      .set({ end_at: new Date('2001-01-01T00:00:00Z') })
      .where('id', '=', closed)
      .execute()
    const open = await w.question(author.id, [])
    const cases: [number, Record<string, unknown>, unknown][] = [
      [closed, { value: 3 }, { object_id: ['Voting on this question is closed.'] }],
      [2_000_000_000, { value: 3 }, { object_id: ['Invalid pk "2000000000" - object does not exist.'] }],
      [open, { value: 3, collection: 1_999_999_999 }, { collection: ['Invalid pk "1999999999" - object does not exist.'] }],
    ]
    for (const [question, body, errors] of cases) {
      const refused = await answer(voter, question, body)
      assert.deepEqual([refused.statusCode, refused.json()], [400, errors])
    }
    const votes = await t.database.db.selectFrom('question_votes').select('id').where('user_id', '=', voter.id).execute()
    assert.deepEqual(votes, [])
  })
})

describe('the fold', () => {
  test("takes away the deltas of a deleted question and a deleted tag, and folds the others'", async () => {
    // Its own service, folding only when told: the deltas wait as long as the test needs.
    const t = await createTestApp('tiny', { MIN_CELL_SIZE: '1', FIGURE_FOLD_DELAY_MS: '600000', FIGURE_FOLD_SWEEP_MS: '3600000' })
    try {
      await deletedRowsFolded(t)
    } finally {
      await t.close()
    }
  })
})

describe('the delta tables', () => {
  test('are vacuumed by the process that folded their rows, and every figure stays a recount', async () => {
    const t = await createTestApp('tiny', { FIGURE_FOLD_DELAY_MS: '0', FIGURE_FOLD_SWEEP_MS: '3600000', FIGURE_FOLD_VACUUM_ROWS: '3' })
    try {
      const vacuums = async () => {
        const { rows } = await sql<{ n: number }>`
          SELECT (pg_stat_get_vacuum_count('question_figure_deltas'::regclass) + pg_stat_get_vacuum_count('tag_vote_deltas'::regclass))::int AS n`.execute(
          t.database.db,
        )
        return rows[0]!.n
      }
      const before = await vacuums()
      const w = delegationWorld(t)
      const [author, voter] = [await w.person(), await w.person()]
      const topic = await w.tag()
      const questions = [await w.question(author.id, [topic]), await w.question(author.id, [topic])]
      for (const question of questions)
        assert.equal((await t.send('POST', '/api/question_votes/', { object_id: question, value: 4 }, voter.token)).statusCode, 201)
      // Two answers append four rows (a question's and a tag's each): the fold after the second passes three.
      const deadline = Date.now() + 10_000
      while ((await vacuums()) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      assert.ok((await vacuums()) > before, 'the delta tables were vacuumed')
      assert.equal((await t.json(`/api/questions/${questions[1]}/`)).direct_high, 1)
      await assertStoredEqualsRecomputed(t.database.db, 'after folds and a vacuum')
    } finally {
      await t.close()
    }
  })
})

async function deletedRowsFolded(t: TestApp): Promise<void> {
  const w = delegationWorld(t)
  const author = await w.person()
  const voter = await w.person()
  const [kept, dropped] = [await w.tag(), await w.tag()]
  const staying = await w.question(author.id, [kept, dropped])
  const leaving = await w.question(author.id, [kept])
  await foldFigureDeltas(t.database.db, true)
  for (const question of [staying, leaving])
    assert.equal((await t.send('POST', '/api/question_votes/', { object_id: question, value: 5 }, voter.token)).statusCode, 201)
  // Withdrawn first, so the voter's counters stay true when the question goes: its deltas stay until a fold.
  const withdrawn = await t.json(`/api/question_votes/?object_id=${leaving}`, { authorization: `Token ${voter.token}` })
  const id = (withdrawn.results ?? withdrawn)[0].id
  assert.equal((await t.send('DELETE', `/api/question_votes/${id}/`, undefined, voter.token)).statusCode, 204)
  const deltas = async () => {
    const { rows } = await sql<{ questions: number[]; tags: number[] }>`
        SELECT ARRAY(SELECT DISTINCT question_id FROM question_figure_deltas ORDER BY 1) AS questions,
               ARRAY(SELECT DISTINCT tag_id FROM tag_vote_deltas ORDER BY 1) AS tags`.execute(t.database.db)
    return rows[0]
  }
  const pending = await deltas()
  assert.ok(pending.questions.includes(leaving) && pending.tags.includes(dropped), 'the answers wait as deltas')
  await t.database.db.deleteFrom('questions').where('id', '=', leaving).execute()
  await t.database.db.deleteFrom('tags').where('id', '=', dropped).execute()
  await foldFigureDeltas(t.database.db)
  assert.deepEqual(await deltas(), { questions: [], tags: [] })
  const q = await t.json(`/api/questions/${staying}/`)
  assert.equal(q.direct_maximum, 1)
  await assertStoredEqualsRecomputed(t.database.db, 'after a fold past deleted rows')
}

describe('a withdrawal in one call', () => {
  test("hands the voter's block back to their representative, and the counters and tags follow", async () => {
    const [delegator, voter, representative] = [await w.person(), await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.onTag(delegator, topic, voter)
    await w.onTag(voter, topic, representative)
    await w.answer(representative, question, 2)
    await w.answer(delegator, question, 5)
    const mine = await answer(voter, question, { value: 4, private: true })
    assert.equal(mine.statusCode, 201, mine.body)
    let q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.liquid_low, q.liquid_high, q.liquid_maximum, q.direct_vote_count], [1, 1, 1, 3])
    // The stored count once the answers' deltas are folded in (migration 046).
    await foldFigureDeltas(t.database.db, true)
    const tagBefore = (await t.database.db.selectFrom('tags').select('votes_count').where('id', '=', topic).executeTakeFirstOrThrow())
      .votes_count
    const gone = await t.send('DELETE', `/api/question_votes/${mine.json().id}/`, undefined, voter.token)
    assert.equal(gone.statusCode, 204, gone.body)
    assert.equal(statements(gone), 3, 'the token, the owner, then the withdrawal')
    q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual(
      [q.liquid_low, q.liquid_high, q.liquid_maximum, q.direct_vote_count],
      [2, 0, 1, 2],
      'the voter counts at their representative',
    )
    await foldFigureDeltas(t.database.db, true)
    const tagAfter = (await t.database.db.selectFrom('tags').select('votes_count').where('id', '=', topic).executeTakeFirstOrThrow())
      .votes_count
    assert.equal(tagAfter, tagBefore - 1)
    const history = await t.database.db.selectFrom('question_vote_history').select('value').where('user_id', '=', voter.id).execute()
    assert.deepEqual(history, [{ value: 4 }])
    const own = await t.json(`/api/users/${voter.id}/`, { authorization: `Token ${voter.token}` })
    assert.equal(own.count_question_votes, 0)
    await assertStoredEqualsRecomputed(t.database.db, 'after a withdrawal in one call')
  })

  test('a public answer that carried votes tells its delegators after the call; a closed question refuses', async () => {
    const [delegator, voter] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.onTag(delegator, topic, voter)
    const mine = await answer(voter, question, { value: 4, private: false })
    assert.equal(statements(mine), 3, 'the token, the answer, then its delegators found and told (its use is written after the answer)')
    const toldOf = async (kind: string) =>
      (
        await t.database.db
          .selectFrom('notifications')
          .select('kind')
          .where('user_id', '=', delegator.id)
          .where('kind', '=', kind)
          .execute()
      ).length
    assert.equal(await toldOf('delegate_answered'), 1)
    const gone = await t.send('DELETE', `/api/question_votes/${mine.json().id}/`, undefined, voter.token)
    assert.equal(gone.statusCode, 204, gone.body)
    assert.equal(statements(gone), 4, 'the token, the owner, the withdrawal, then its delegators told')
    assert.equal(await toldOf('delegate_withdrew'), 1)
    const again = await answer(voter, question, { value: 3, private: true })
    await t.database.db
      .updateTable('questions')
      .set({ end_at: new Date('2001-01-01T00:00:00Z') })
      .where('id', '=', question)
      .execute()
    const refused = await t.send('DELETE', `/api/question_votes/${again.json().id}/`, undefined, voter.token)
    assert.deepEqual([refused.statusCode, refused.json()], [400, { non_field_errors: ['Voting on this question is closed.'] }])
    assert.equal((await t.json(`/api/questions/${question}/`)).direct_vote_count, 1, 'nothing moved')
    await assertStoredEqualsRecomputed(t.database.db, 'after the withdrawals')
  })

  test('a pick withdrawn hands the block back to the choice its representative picked', async () => {
    const [voter, representative] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic], { subtype: 'mcq' })
    const [first, second] = await w.choices(question, 2)
    await w.onTag(voter, topic, representative)
    await w.choose(representative, second, 5)
    const mine = await t.send('POST', '/api/question_choice_votes/', { object_id: first, value: 5, private: true }, voter.token)
    assert.equal(mine.statusCode, 201, mine.body)
    const gone = await t.send('DELETE', `/api/question_choice_votes/${mine.json().id}/`, undefined, voter.token)
    assert.equal(gone.statusCode, 204, gone.body)
    const choices = (await t.json(`/api/questions/${question}/`)).choices.map((c: any) => [c.id, c.direct_vote_count, c.liquid_vote_count])
    assert.deepEqual(choices, [
      [first, 0, 0],
      [second, 1, 2],
    ])
    await assertStoredEqualsRecomputed(t.database.db, 'after a pick was withdrawn')
  })
})

describe('an edit in one call', () => {
  const patch = (who: Person, table: string, id: number, body: Record<string, unknown>) =>
    t.send('PATCH', `/api/${table}/${id}/`, body, who.token)

  test('a new value moves the counts and keeps the old one in the history; privacy and importance alone keep the window', async () => {
    const voter = await w.person()
    const question = await w.question(author.id, [])
    const mine = (await answer(voter, question, { value: 2, importance: 1, private: true })).json()
    const edited = await patch(voter, 'question_votes', mine.id, { value: 5 })
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(statements(edited), 3, 'the token, the owner, then the edit')
    assert.deepEqual([edited.json().value, edited.json().importance, edited.json().private], [5, 1, true])
    let q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.direct_low, q.direct_maximum, q.liquid_maximum], [0, 1, 1])
    await t.database.db
      .updateTable('questions')
      .set({ end_at: new Date('2001-01-01T00:00:00Z') })
      .where('id', '=', question)
      .execute()
    const late = await patch(voter, 'question_votes', mine.id, { value: 1 })
    assert.deepEqual([late.statusCode, late.json()], [400, { value: ['Voting on this question is closed.'] }])
    const shown = await patch(voter, 'question_votes', mine.id, { private: false, importance: 4 })
    assert.equal(shown.statusCode, 200, shown.body)
    assert.deepEqual([shown.json().private, shown.json().importance, shown.json().value], [false, 4, 5])
    const seen = await t.json(`/api/users/${voter.id}/`)
    assert.equal(seen.count_question_votes, 1, 'the answer now counts in public')
    q = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([q.direct_maximum, q.direct_vote_count], [1, 1])
    const history = await t.database.db.selectFrom('question_vote_history').select('value').where('user_id', '=', voter.id).execute()
    assert.deepEqual(history, [{ value: 2 }])
    await assertStoredEqualsRecomputed(t.database.db, 'after the edits')
  })

  test('refusals name the field; going private is the same one call', async () => {
    const voter = await w.person()
    const question = await w.question(author.id, [], { subtype: 'mcq' })
    const [choice] = await w.choices(question, 1)
    const mine = (await t.send('POST', '/api/question_choice_votes/', { object_id: choice, skipped: true }, voter.token)).json()
    const unskipped = await patch(voter, 'question_choice_votes', mine.id, { skipped: false })
    assert.deepEqual([unskipped.statusCode, unskipped.json()], [400, { value: ['This field is required.'] }])
    const nowhere = await patch(voter, 'question_choice_votes', mine.id, { collection: 1_999_999_999 })
    assert.deepEqual([nowhere.statusCode, nowhere.json()], [400, { collection: ['Invalid pk "1999999999" - object does not exist.'] }])
    const picked = await patch(voter, 'question_choice_votes', mine.id, { value: 5 })
    assert.equal(picked.statusCode, 200, picked.body)
    assert.equal(statements(picked), 3)
    const hidden = await patch(voter, 'question_choice_votes', mine.id, { private: true })
    assert.equal(hidden.statusCode, 200, hidden.body)
    assert.equal(statements(hidden), 3, 'the latest public answer is found again inside the call')
    const choices = (await t.json(`/api/questions/${question}/`)).choices.map((c: any) => [c.direct_vote_count, c.direct_skipped])
    assert.deepEqual(choices, [[1, 0]])
    await assertStoredEqualsRecomputed(t.database.db, 'after the edits of a pick')
  })
})

describe('a first pick in one call', () => {
  const pick = (who: Person, choice: number, body: Record<string, unknown>) =>
    t.send('POST', '/api/question_choice_votes/', { object_id: choice, ...body }, who.token)
  const choiceFigures = async (question: number) =>
    (await t.json(`/api/questions/${question}/`)).choices.map((c: any) => [
      c.id,
      c.direct_vote_count,
      c.liquid_vote_count,
      c.liquid_maximum,
    ])

  test("takes one statement; the choice counts the pick, the question's own family nothing", async () => {
    const voter = await w.person()
    const question = await w.question(author.id, [], { subtype: 'mcq' })
    const [first, second] = await w.choices(question, 2)
    await w.answer(voter, await w.question(author.id, []), 3)
    const picked = await pick(voter, second, { value: 5 })
    assert.equal(picked.statusCode, 201, picked.body)
    assert.equal(statements(picked), 2, 'the token, then the pick')
    assert.deepEqual([picked.json().object_id, picked.json().value], [second, 5])
    assert.deepEqual(await choiceFigures(question), [
      [first, 0, 0, 0],
      [second, 1, 1, 1],
    ])
    const q = await t.json(`/api/questions/${question}/`)
    assert.equal(q.direct_vote_count, 0)
    await assertStoredEqualsRecomputed(t.database.db, 'after a first pick')
  })

  test("a delegator's first pick takes their weight off the choice their representative picked", async () => {
    const [delegator, representative] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic], { subtype: 'mcq' })
    const [first, second] = await w.choices(question, 2)
    await w.onTag(delegator, topic, representative)
    await w.choose(representative, second, 5)
    assert.deepEqual(await choiceFigures(question), [
      [first, 0, 0, 0],
      [second, 1, 2, 2],
    ])
    const own = await pick(delegator, first, { value: 5 })
    assert.equal(own.statusCode, 201, own.body)
    assert.equal(statements(own), 2)
    assert.deepEqual(await choiceFigures(question), [
      [first, 1, 1, 1],
      [second, 1, 1, 1],
    ])
    await assertStoredEqualsRecomputed(t.database.db, 'after the delegator picked')
  })

  test('picking another choice moves the pick in one call, and closing the question refuses it by name', async () => {
    const voter = await w.person()
    const question = await w.question(author.id, [], { subtype: 'mcq' })
    const [first, second] = await w.choices(question, 2)
    await w.answer(voter, await w.question(author.id, []), 3)
    assert.equal((await pick(voter, first, { value: 5 })).statusCode, 201)
    const moved = await pick(voter, second, { value: 5 })
    assert.equal(moved.statusCode, 200, moved.body)
    assert.equal(statements(moved), 2, 'the token, then the replacement')
    assert.equal(moved.json().object_id, second)
    assert.deepEqual(await choiceFigures(question), [
      [first, 0, 0, 0],
      [second, 1, 1, 1],
    ])
    const history = await t.database.db
      .selectFrom('question_choice_vote_history')
      .select('choice_id')
      .where('user_id', '=', voter.id)
      .execute()
    assert.deepEqual(history, [{ choice_id: first }])
    await t.database.db
      .updateTable('questions')
      .set({ end_at: new Date('2001-01-01T00:00:00Z') })
      .where('id', '=', question)
      .execute()
    const refused = await pick(voter, first, { value: 5 })
    assert.deepEqual([refused.statusCode, refused.json()], [400, { object_id: ['Voting on this question is closed.'] }])
    assert.deepEqual((await choiceFigures(question))[1], [second, 1, 1, 1], 'nothing moved')
    await assertStoredEqualsRecomputed(t.database.db, 'after a pick moved')
  })

  test('a choice of a likert question, or of nothing, is refused by name', async () => {
    const voter = await w.person()
    const likert = await w.question(author.id, [])
    const [stray] = await w.choices(likert, 1)
    const refused = await pick(voter, stray, { value: 5 })
    assert.deepEqual(
      [refused.statusCode, refused.json()],
      [400, { object_id: ['This choice belongs to a question that is not multiple choice.'] }],
    )
    const missing = await pick(voter, 2_000_000_000, { value: 5 })
    assert.deepEqual([missing.statusCode, missing.json()], [400, { object_id: ['Invalid pk "2000000000" - object does not exist.'] }])
  })
})

describe('the stored floats are generated from the counts', () => {
  test('counts written directly give the figures the arithmetic gives', async () => {
    const question = await w.question(author.id, [])
    const counts = [3, 0, 1, 0, 7] as const
    await t.database.db
      .updateTable('questions')
      .set({ liquid_minimum: counts[0], liquid_medium: counts[2], liquid_maximum: counts[4] })
      .where('id', '=', question)
      .execute()
    const q = await t.json(`/api/questions/${question}/`)
    const expected = likertFigures(counts)
    assert.equal(q.liquid_vote_count, 11)
    assert.equal(q.liquid_sum, expected.sum)
    for (const field of ['value', 'consensus', 'heat'] as const) assert.ok(Math.abs(q[`liquid_${field}`] - expected[field]) < 1e-12, field)
    assert.ok(Math.abs(q.polarisation - expected.polarisation) < 1e-12)
  })

  test('the database refuses a figure written beside its counts', async () => {
    const question = await w.question(author.id, [])
    await assert.rejects(
      sql`UPDATE questions SET direct_value = 5 WHERE id = ${question}`.execute(t.database.db),
      /can only be updated to DEFAULT/,
    )
  })
})
