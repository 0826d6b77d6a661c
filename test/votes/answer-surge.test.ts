import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { foldFigureDeltas } from '../../src/db/answer-gate.ts'
import { assertStoredEqualsRecomputed, likertQuestion, mcqQuestion } from './support.ts'

/**
 * A surge on one question with the answers' count deltas left unfolded (the folder is held off), so every figure a
 * client reads comes from the stored counts plus the deltas (migration 046): each person reads their own answer at
 * once, the figures, orderings and the tag's count equal what was sent, and folding changes no byte of them.
 * On PostgreSQL the answers overlap for real; on PGlite they run one after another.
 */

let t: TestApp
const VOTERS = 40
const voters: { id: number; token: string }[] = []
let likert = 0
let mcq = 0
let choiceIds: number[] = []
let tagId = 0
let other = 0

before(async () => {
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1', FIGURE_FOLD_DELAY_MS: '600000', FIGURE_FOLD_SWEEP_MS: '3600000' })
  const db = t.database.db
  const author = await insertUser(db)
  const authorToken = await t.tokenFor(author.id)
  for (let i = 0; i < VOTERS; i++) {
    const user = await insertUser(db, { default_private: false })
    voters.push({ id: user.id, token: await t.tokenFor(user.id) })
  }
  likert = (await likertQuestion(db, author.id)).id
  other = (await likertQuestion(db, author.id)).id
  const question = await mcqQuestion(db, author.id, 3)
  mcq = question.id
  choiceIds = question.choiceIds
  tagId = (await insertTag(db)).id
  const tagged = await t.send('POST', '/api/question_tags/', { question: likert, tag: tagId }, authorToken)
  assert.equal(tagged.statusCode, 201, tagged.body)
  await foldFigureDeltas(db, true)
})
after(() => t.close())

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']
const valueOf = (i: number) => (i % 5) + 1

async function pending(): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM question_figure_deltas`.execute(t.database.db)
  return Number(rows[0].n)
}

test('a surge on one question: everyone reads their own answer at once, every figure is exact before and after the fold', async () => {
  const tagBefore = (await t.json(`/api/tags/${tagId}/`)).votes_count as number
  await Promise.all(
    voters.map(async (voter, i) => {
      const answered = await t.send('POST', '/api/question_votes/', { object_id: likert, value: valueOf(i) }, voter.token)
      assert.equal(answered.statusCode, 201, answered.body)
      const picked = await t.send('POST', '/api/question_choice_votes/', { object_id: choiceIds[i % 3], value: 5 }, voter.token)
      assert.equal(picked.statusCode, 201, picked.body)
      // Their own answer, at once, in the question as the clients read it.
      const seen = await t.json(`/api/questions/${likert}/`, { authorization: `Token ${voter.token}` })
      assert.deepEqual(
        seen.my_vote.map((v: { value: number }) => v.value),
        [valueOf(i)],
      )
      assert.ok(seen.direct_vote_count >= 1)
    }),
  )
  assert.ok((await pending()) > 0, 'the deltas are still unfolded: the figures below are read through them')

  const expected = Object.fromEntries(LEVELS.map((level, n) => [`direct_${level}`, voters.filter((_, i) => valueOf(i) === n + 1).length]))
  const read = async () => {
    const detail = await t.json(`/api/questions/${likert}/`)
    const listed = (await t.json(`/api/questions/?id=${likert}`)).results[0]
    const choices = (await t.json(`/api/questions/${mcq}/`)).choices.map((c: { direct_vote_count: number }) => c.direct_vote_count)
    const tag = (await t.json(`/api/tags/${tagId}/`)).votes_count as number
    // Ordered by a figure: the surged question's value sorts against one nobody answered.
    const ordered = (await t.json(`/api/questions/?id__in=${likert},${other}&ordering=-direct_vote_count`)).results.map(
      (q: { id: number }) => q.id,
    )
    return { detail, listed, choices, tag, ordered }
  }
  const before = await read()
  for (const [field, count] of Object.entries(expected)) {
    assert.equal(before.detail[field], count, field)
    assert.equal(before.listed[field], count, `${field} in the listing`)
  }
  assert.equal(before.detail.direct_vote_count, VOTERS)
  assert.equal(before.detail.liquid_vote_count, VOTERS)
  assert.deepEqual(
    before.choices,
    [0, 1, 2].map((c) => voters.filter((_, i) => i % 3 === c).length),
  )
  assert.equal(before.tag, tagBefore + VOTERS)
  assert.deepEqual(before.ordered, [likert, other])
  await assertStoredEqualsRecomputed(t.database.db, 'with the deltas unfolded')

  assert.ok((await foldFigureDeltas(t.database.db)) > 0)
  assert.equal(await pending(), 0)
  const folded = await read()
  assert.deepEqual(JSON.stringify(folded), JSON.stringify(before), 'folding moves no figure')
  await assertStoredEqualsRecomputed(t.database.db, 'folded')
})
