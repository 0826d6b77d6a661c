import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import pg from 'pg'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { serverUrl, serviceDatabaseEnv } from '../helpers/databases.ts'
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect.ts'
import { foldFigureDeltas } from '../../src/db/answer-gate.ts'
import { rebuildAllLiquid } from '../../src/engines/liquid/liquid.rebuild.ts'
import { assertStoredEqualsRecomputed } from '../votes/support.ts'
import { Delegating } from './delegating.ts'

/**
 * The people who delegate to one trustee answering at once (migration 054): each takes their vote off the trustee's
 * answer as a delta, so none waits for another, and every figure, weight and kept block size read while the deltas
 * are unfolded is exact. Two services answer side by side on one database (on PostgreSQL, each with its own pool and
 * its own answer groups; PGlite is one process's, so there they share it).
 */

const ENV = { MIN_CELL_SIZE: '1', FIGURE_FOLD_DELAY_MS: '600000', FIGURE_FOLD_SWEEP_MS: '3600000' }
const DIRECT = 30
const THROUGH_MIDDLE = 10
let a: TestApp
let b: TestApp
let second: DatabaseHandle | null = null
let trustee: { id: number; token: string }
let middle: { id: number; token: string }
const delegators: { id: number; token: string }[] = []
let likert = 0
let choiceIds: number[] = []
let mcq = 0

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']
const valueOf = (i: number) => (i % 5) + 1
const liquidCounts = (q: Record<string, number>) => LEVELS.map((level) => q[`liquid_${level}`])

before(async () => {
  a = await createTestApp('tiny', ENV)
  const db = a.database.db
  if (serverUrl()) {
    const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(db)
    const urls = serviceDatabaseEnv(rows[0].name)
    second = await connectDatabase({ databaseUrl: urls.DATABASE_URL, directUrl: urls.DATABASE_DIRECT_URL, dataDir: '', poolSize: 8 })
  }
  b = await createTestApp('tiny', ENV, undefined, { database: second ?? a.database })
  const person = async () => {
    const user = await insertUser(db, { default_private: false })
    return { id: user.id, token: await a.tokenFor(user.id) }
  }
  const author = await person()
  trustee = await person()
  middle = await person()
  for (let i = 0; i < DIRECT + THROUGH_MIDDLE; i++) delegators.push(await person())
  const topic = (await insertTag(db)).id
  const delegating = new Delegating(a)
  await delegating.onTag(middle.token, middle.id, topic, trustee.id, 0)
  for (const [i, d] of delegators.entries()) await delegating.onTag(d.token, d.id, topic, i < DIRECT ? trustee.id : middle.id, 0)
  const ask = async (body: Record<string, unknown>) => {
    const response = await a.send('POST', '/api/questions/', { ...body, tags: [{ tag: { id: topic } }] }, author.token)
    assert.equal(response.statusCode, 201, response.body)
    return response.json()
  }
  likert = (await ask({ question: 'Should the trustee decide?' })).id
  const question = await ask({ question: 'Which way?', choices: [{ text: 'A' }, { text: 'B' }, { text: 'C' }] })
  mcq = question.id
  choiceIds = question.choices.map((c: { id: number }) => c.id)
  // Every block of one person or more kept, so that the answers below move kept sizes too.
  await rebuildAllLiquid(db, true, undefined, 1)
  assert.equal((await a.send('POST', '/api/question_votes/', { object_id: likert, value: 2 }, trustee.token)).statusCode, 201)
  assert.equal((await a.send('POST', '/api/question_choice_votes/', { object_id: choiceIds[0], value: 5 }, trustee.token)).statusCode, 201)
  await foldFigureDeltas(db, true)
})
after(async () => {
  await b.close()
  await a.close()
  await second?.close()
})

async function pendingLiquid(): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT (SELECT count(*) FROM liquid_weight_deltas) + (SELECT count(*) FROM liquid_block_deltas) AS n`.execute(a.database.db)
  return Number(rows[0].n)
}

async function storedWeight(table: 'question_votes' | 'question_choice_votes', question: number, user: number) {
  const row = await a.database.db
    .selectFrom(table)
    .select('liquid_weight')
    .where('question_id', '=', question)
    .where('user_id', '=', user)
    .executeTakeFirstOrThrow()
  return row.liquid_weight
}

test("a trustee's delegators answer at once through two services: each reads their own answer, every figure is exact before the fold and the same after", async () => {
  const before = await a.json(`/api/questions/${likert}/`)
  // The trustee carries everyone: the middle person and all delegators are unanswered.
  assert.deepEqual(liquidCounts(before), [0, 2 + DIRECT + THROUGH_MIDDLE, 0, 0, 0])
  await Promise.all(
    delegators.map(async (d, i) => {
      const through = i % 2 === 0 ? a : b
      const answered = await through.send('POST', '/api/question_votes/', { object_id: likert, value: valueOf(i) }, d.token)
      assert.equal(answered.statusCode, 201, answered.body)
      const picked = await through.send('POST', '/api/question_choice_votes/', { object_id: choiceIds[1 + (i % 2)], value: 5 }, d.token)
      assert.equal(picked.statusCode, 201, picked.body)
      const seen = await (i % 2 === 0 ? b : a).json(`/api/questions/${likert}/`, { authorization: `Token ${d.token}` })
      assert.deepEqual(
        seen.my_vote.map((v: { value: number }) => v.value),
        [valueOf(i)],
        'their own answer, at once, through the other service',
      )
    }),
  )
  assert.ok((await pendingLiquid()) > 0, "the trustee's weight and kept sizes moved as deltas, still unfolded")

  const expected = LEVELS.map((_, n) => delegators.filter((_, i) => valueOf(i) === n + 1).length)
  expected[1] += 2 // the trustee's own answer at 2 carries the middle person, who has not answered
  const read = async () => ({
    likert: await a.json(`/api/questions/${likert}/`),
    mcq: (await b.json(`/api/questions/${mcq}/`)).choices.map((c: { liquid_vote_count: number }) => c.liquid_vote_count),
    ordered: (await a.json(`/api/questions/?id__in=${likert},${mcq}&ordering=-liquid_vote_count`)).results.map((q: { id: number }) => q.id),
  })
  const unfolded = await read()
  assert.deepEqual(liquidCounts(unfolded.likert), expected)
  assert.equal(unfolded.likert.liquid_vote_count, 2 + DIRECT + THROUGH_MIDDLE)
  assert.deepEqual(unfolded.mcq, [2, DIRECT / 2 + THROUGH_MIDDLE / 2, DIRECT / 2 + THROUGH_MIDDLE / 2])
  // Kept sizes as read (the stored size and its deltas) equal a walk; the liquid check and every stored figure agree.
  const { rows: kept } = await sql<{ user_id: number; intree: number; walked: number }>`
    SELECT user_id, liquid_intree(question_id, user_id) AS intree, liquid_intree_walk(question_id, user_id) AS walked
    FROM liquid_blocks WHERE question_id = ${likert} AND user_id IN (${trustee.id}, ${middle.id}) ORDER BY user_id`.execute(a.database.db)
  assert.deepEqual(
    kept.map((row) => [row.intree, row.walked]),
    [
      [1, 1],
      [0, 0],
    ],
  )
  assert.deepEqual(await rebuildAllLiquid(a.database.db, false), [])
  await assertStoredEqualsRecomputed(a.database.db, 'with the liquid deltas unfolded')

  assert.ok((await foldFigureDeltas(a.database.db, true)) > 0)
  assert.equal(await pendingLiquid(), 0)
  assert.equal(await storedWeight('question_votes', likert, trustee.id), 2)
  assert.equal(await storedWeight('question_choice_votes', mcq, trustee.id), 2)
  assert.deepEqual(JSON.stringify(await read()), JSON.stringify(unfolded), 'folding moves no figure')
  await assertStoredEqualsRecomputed(a.database.db, 'folded')
})

test(
  'a delegator whose answer is in flight keeps no other delegator waiting; an answer that moves a block waits for it',
  { skip: serverUrl() ? false : 'PostgreSQL only: two connections in flight at once' },
  async () => {
    const db = a.database.db
    const author = await insertUser(db)
    const { rows } = await sql<{ id: number }>`INSERT INTO questions (user_id, question, slug, publish)
      VALUES (${author.id}, 'In flight?', ${`in-flight-${author.id}`}, true) RETURNING id`.execute(db)
    const question = rows[0].id
    const topic = (await sql<{ tag_id: number }>`SELECT tag_id FROM question_tags WHERE question_id = ${likert}`.execute(db)).rows[0].tag_id
    await sql`INSERT INTO question_tags (question_id, tag_id) VALUES (${question}, ${topic})`.execute(db)
    const cast = (client: pg.Client, user: number, value: number) =>
      client.query(`SELECT outcome FROM cast_likert($1, $2, false, $3::smallint, false, NULL, NULL, true, NULL, NULL, NULL, NULL, NULL)`, [
        question,
        user,
        value,
      ])
    const { rows: named } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(db)
    const url = serviceDatabaseEnv(named[0].name).DATABASE_DIRECT_URL ?? serviceDatabaseEnv(named[0].name).DATABASE_URL
    const [first, other] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })]
    await Promise.all([first.connect(), other.connect()])
    try {
      assert.equal((await cast(other, trustee.id, 4)).rows[0].outcome, 'written')
      await first.query('BEGIN')
      assert.equal((await cast(first, delegators[0].id, 1)).rows[0].outcome, 'written')
      // The first delegator's transaction is open: another's answer goes through beside it, not after it.
      await other.query(`SET lock_timeout = '5s'`)
      assert.equal((await cast(other, delegators[1].id, 5)).rows[0].outcome, 'written')
      assert.equal((await cast(other, delegators[DIRECT].id, 3)).rows[0].outcome, 'written')
      // The middle person's first answer moves a block of people: it waits for the answers in flight.
      await other.query(`SET lock_timeout = '300ms'`)
      await assert.rejects(cast(other, middle.id, 2), (error: { code?: string }) => error.code === '55P03')
      await first.query('COMMIT')
      await other.query(`SET lock_timeout = '5s'`)
      assert.equal((await cast(other, middle.id, 2)).rows[0].outcome, 'written')
    } finally {
      await Promise.all([first.end(), other.end()])
    }
    const figures = await a.json(`/api/questions/${question}/`)
    // The trustee carries the unanswered: everyone but the three delegators and the middle person with their own.
    const carried = 1 + DIRECT - 2
    assert.deepEqual(liquidCounts(figures), [1, THROUGH_MIDDLE - 1 + 1, 1, carried, 1])
    assert.deepEqual(await rebuildAllLiquid(db, false), [])
    await assertStoredEqualsRecomputed(db, 'after the answers in flight')
  },
)
