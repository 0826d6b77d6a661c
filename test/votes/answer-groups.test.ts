import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import pg from 'pg'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { serverUrl, serviceDatabaseEnv } from '../helpers/databases.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { castAnswerCall, type AnswerCallInput } from '../../src/modules/votes/answer-call.repository.ts'
import { foldFigureDeltas } from '../../src/db/answer-gate.ts'
import { assertStoredEqualsRecomputed, likertQuestion, mcqQuestion } from './support.ts'

/**
 * Answers that arrive together are cast together (src/modules/votes/answer-call.repository.ts): one statement and
 * one commit for the group, each answer with its own outcome. Seen through HTTP: the statuses, bodies and statement
 * counts a lone answer gets, refusals in the middle of a group, each person's own answer at once, exact figures.
 * The folder is held off, so the count deltas a group appends stay to be counted, and every figure is read through them.
 */

let t: TestApp
before(async () => {
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1', FIGURE_FOLD_DELAY_MS: '600000', FIGURE_FOLD_SWEEP_MS: '3600000' })
})
after(() => t.close())

const statements = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-query-count'])

/** An answer as the service passes it to the call, nothing but its object, person, value and privacy. */
const answer = (object: number, user: number, value: number | null, isPrivate = false): AnswerCallInput => ({
  object,
  user,
  staff: false,
  value,
  private: isPrivate,
  collection: null,
  importance: undefined,
  analytics_interface: null,
  analytics_os: null,
  analytics_browser: null,
  analytics_parent_url: null,
  analytics_location: null,
})

test('answers sent at once are cast in fewer transactions, each answered as if alone', async () => {
  const db = t.database.db
  const author = await insertUser(db)
  const open = (await likertQuestion(db, author.id)).id
  const closed = (await likertQuestion(db, author.id, { end_at: new Date('2001-01-01T00:00:00Z') })).id
  const people = await Promise.all(Array.from({ length: 16 }, () => insertUser(db)))
  const tokens = await Promise.all(people.map((person) => t.tokenFor(person.id)))
  // Tokens known, so a POST's statements are its answer's alone.
  await Promise.all(tokens.map((token) => t.get('/api/users/me/', { authorization: `Token ${token}` })))
  const lone = await t.send('POST', '/api/question_votes/', { object_id: open, value: 3 }, tokens[15]!)
  assert.equal(lone.statusCode, 201, lone.body)

  const sent = people
    .slice(0, 15)
    .map((_, i) =>
      t.send(
        'POST',
        '/api/question_votes/',
        { object_id: i % 5 === 4 ? closed : open, value: (i % 5) + 1, private: i % 3 === 0 },
        tokens[i]!,
      ),
    )
  const answered = await Promise.all(sent)
  answered.forEach((response, i) => {
    if (i % 5 === 4) {
      assert.deepEqual([response.statusCode, response.json()], [400, { object_id: ['Voting on this question is closed.'] }])
    } else {
      assert.equal(response.statusCode, 201, response.body)
      const vote = response.json()
      assert.deepEqual([vote.object_id, vote.value, vote.private], [open, (i % 5) + 1, i % 3 === 0])
      assert.equal(statements(response), statements(lone), 'one answer, one statement, grouped or not')
    }
  })

  // Twelve answers to the open question, in fewer transactions than answers. PGlite runs one statement at a time, so
  // there the requests reach the answer call one after another and each goes alone.
  const { rows } = await sql<{ answers: number; transactions: number }>`
    SELECT count(*)::int AS answers, count(DISTINCT xmin::text)::int AS transactions FROM question_votes WHERE question_id = ${open}`.execute(
    db,
  )
  assert.equal(rows[0]!.answers, 13)
  if (t.database.kind === 'postgres')
    assert.ok(rows[0]!.transactions < 12, `grouped: ${rows[0]!.transactions} transactions for 12 answers sent at once`)
  const refused = await db.selectFrom('question_votes').select('id').where('question_id', '=', closed).execute()
  assert.deepEqual(refused, [])

  // Each person reads their own answer at once.
  for (const i of [0, 1, 2, 3]) {
    const question = await t.get(`/api/questions/${open}/`, { authorization: `Token ${tokens[i]!}` })
    assert.deepEqual(
      question.json().my_vote.map((vote: { value: number }) => vote.value),
      [(i % 5) + 1],
    )
  }
  const figures = (await t.get(`/api/questions/${open}/`)).json()
  assert.equal(figures.direct_vote_count, 13)
  await assertStoredEqualsRecomputed(db, 'after a group of answers')
})

test('a group keeps each answer as sent: values, skips, privacy and analytics text with commas and quotes', async () => {
  const db = t.database.db
  const author = await insertUser(db)
  const question = (await likertQuestion(db, author.id)).id
  const people = await Promise.all(Array.from({ length: 6 }, () => insertUser(db)))
  const odd = 'web, "beta" {1}\\'
  // Called together, the first goes alone and the other five wait and go as one group, on either database.
  const cast = await Promise.all(
    people.map((person, i) =>
      castAnswerCall<{ value: number | null; skipped: boolean; private: boolean; analytics_interface: string | null }>(db, 'cast_likert', {
        object: question,
        user: person.id,
        staff: false,
        value: i === 5 ? null : i + 1,
        private: i % 2 === 0,
        collection: null,
        importance: undefined,
        analytics_interface: odd,
        analytics_os: null,
        analytics_browser: null,
        analytics_parent_url: null,
        analytics_location: null,
      }),
    ),
  )
  assert.deepEqual(
    cast.map((r) => [r.outcome, r.vote?.value, r.vote?.skipped, r.vote?.private, r.vote?.analytics_interface]),
    people.map((_, i) => ['written', i === 5 ? null : i + 1, i === 5, i % 2 === 0, odd]),
  )
  const { rows } = await sql<{ transactions: number }>`
    SELECT count(DISTINCT xmin::text)::int AS transactions FROM question_votes WHERE question_id = ${question}`.execute(db)
  assert.equal(rows[0]!.transactions, 2, 'the first answer alone, the five that waited in one group')
  await assertStoredEqualsRecomputed(db, 'after a direct group')
})

test(
  "a group waiting on a question's lock holds nobody's counters: they are written at its end, in person order",
  { skip: serverUrl() ? false : 'PostgreSQL only: other connections hold and probe the locks' },
  async () => {
    const db = t.database.db
    const author = await insertUser(db)
    const first = (await likertQuestion(db, author.id)).id
    const second = (await likertQuestion(db, author.id)).id
    const [early, late] = [await insertUser(db), await insertUser(db)]
    const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(db)
    const env = serviceDatabaseEnv(rows[0]!.name)
    const [holder, prober] = [0, 1].map(() => new pg.Client({ connectionString: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL }))
    await Promise.all([holder!.connect(), prober!.connect()])
    try {
      // Another private answer to the second question in flight: its serial lock is held.
      await holder!.query('BEGIN')
      await holder!.query('SELECT pg_advisory_xact_lock(4702, $1)', [second])
      // The group casts early's public answer to the first question, then waits on late's private one to the second.
      const group = sql<{ n: number; outcome: string }>`
        SELECT r.n::int AS n, r.outcome FROM cast_likert_group(${[second, first]}::integer[], ${[late.id, early.id]}::integer[],
          '{f,f}'::boolean[], '{4,2}'::smallint[], '{t,f}'::boolean[], '{NULL,NULL}'::integer[], '{NULL,NULL}'::smallint[],
          '{t,t}'::boolean[], '{NULL,NULL}'::text[], '{NULL,NULL}'::text[], '{NULL,NULL}'::text[], '{NULL,NULL}'::text[],
          '{NULL,NULL}'::text[]) AS r ORDER BY r.n`.execute(db)
      let waiting = 0
      for (let i = 0; i < 200 && waiting === 0; i++) {
        const found = await prober!.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%cast_likert_group%'
             AND pid <> pg_backend_pid()`,
        )
        waiting = found.rows[0].n
        if (waiting === 0) await new Promise((resolve) => setTimeout(resolve, 25))
      }
      assert.equal(waiting, 1, 'the group waits on the second question')
      const written = await prober!.query('SELECT count(*)::int AS n FROM question_votes WHERE question_id = $1', [first])
      assert.equal(written.rows[0].n, 0, 'not committed yet')
      // Whoever needs early's counters meanwhile (an edit, a withdrawal, another group) takes them at once.
      await prober!.query('BEGIN')
      const counters = await prober!.query('SELECT id FROM user_answer_counts WHERE id = $1 FOR NO KEY UPDATE NOWAIT', [early.id])
      assert.equal(counters.rowCount, 1)
      await prober!.query('ROLLBACK')
      await holder!.query('ROLLBACK')
      assert.deepEqual((await group).rows, [
        { n: 1, outcome: 'written' },
        { n: 2, outcome: 'written' },
      ])
    } finally {
      await holder!.query('ROLLBACK').catch(() => {})
      await Promise.all([holder!.end(), prober!.end()])
    }
    const counts = await db
      .selectFrom('user_answer_counts')
      .select(['id', 'count_votes', 'public_count_votes'])
      .where('id', 'in', [early.id, late.id])
      .orderBy('id')
      .execute()
    assert.deepEqual(counts, [
      { id: early.id, count_votes: 1, public_count_votes: 1 },
      { id: late.id, count_votes: 1, public_count_votes: 0 },
    ])
    await assertStoredEqualsRecomputed(db, 'after a group that waited')
  },
)

test('a group writes what its answers moved once, at its end: a count row per question or choice, one per tag, exact figures', async () => {
  const db = t.database.db
  const author = await insertUser(db)
  const likert = (await likertQuestion(db, author.id)).id
  const mcq = await mcqQuestion(db, author.id, 2)
  const tag = (await insertTag(db)).id
  const tagged = await t.send('POST', '/api/question_tags/', { question: likert, tag }, await t.tokenFor(author.id))
  assert.equal(tagged.statusCode, 201, tagged.body)
  await foldFigureDeltas(db, true)
  const people = await Promise.all(Array.from({ length: 6 }, () => insertUser(db, { default_private: false })))
  // Called together, the first of each kind goes alone and the other five wait and go as one group, on either database.
  const cast = [
    ...(await Promise.all(people.map((person, i) => castAnswerCall(db, 'cast_likert', answer(likert, person.id, (i % 3) + 1))))),
    ...(await Promise.all(people.map((person, i) => castAnswerCall(db, 'cast_pick', answer(mcq.choiceIds[i % 2]!, person.id, 4))))),
  ]
  assert.deepEqual(new Set(cast.map((r) => r.outcome)), new Set(['written']))

  const { rows } = await sql<{ question_id: number; choice_id: number | null; rows: number; direct: number }>`
    SELECT question_id, choice_id, count(*)::int AS rows,
      sum(direct_minimum + direct_low + direct_medium + direct_high + direct_maximum + direct_skipped)::int AS direct
    FROM question_figure_deltas WHERE question_id IN (${likert}, ${mcq.id})
    GROUP BY question_id, choice_id ORDER BY question_id, choice_id`.execute(db)
  // The lone answers' rows and the group's: its five likert answers in one row, its picks in one row for each choice.
  assert.deepEqual(rows, [
    { question_id: likert, choice_id: null, rows: 2, direct: 6 },
    { question_id: mcq.id, choice_id: mcq.choiceIds[0]!, rows: 2, direct: 3 },
    { question_id: mcq.id, choice_id: mcq.choiceIds[1]!, rows: 1, direct: 3 },
  ])
  const tagRows = await sql<{ rows: number; delta: number }>`
    SELECT count(*)::int AS rows, sum(delta)::int AS delta FROM tag_vote_deltas WHERE tag_id = ${tag}`.execute(db)
  assert.deepEqual(tagRows.rows, [{ rows: 2, delta: 6 }])

  // What clients read adds those rows: the counts, the tag's count, each person's counters.
  const question = (await t.get(`/api/questions/${likert}/`)).json()
  assert.equal(question.direct_vote_count, 6)
  const choices = (await t.get(`/api/questions/${mcq.id}/`)).json().choices
  assert.deepEqual(
    choices.map((choice: { direct_vote_count: number }) => choice.direct_vote_count),
    [3, 3],
  )
  assert.equal((await t.get(`/api/tags/${tag}/`)).json().votes_count, 6)
  for (const person of people) {
    const shown = (await t.get(`/api/users/${person.id}/`)).json()
    assert.deepEqual([shown.count_votes, shown.count_question_votes, shown.count_choice_votes], [2, 1, 1])
  }
  await assertStoredEqualsRecomputed(db, 'with a group written at its end, unfolded')
})

test("a group inserts its lone first answers together, and a voter's next answer to the same question finds theirs", async () => {
  const db = t.database.db
  const author = await insertUser(db)
  const [first, second] = [(await likertQuestion(db, author.id)).id, (await likertQuestion(db, author.id)).id]
  const mcq = await mcqQuestion(db, author.id, 2)
  const [early, lone, other, hidden] = await Promise.all(Array.from({ length: 4 }, () => insertUser(db, { default_private: false })))
  // Called together, the first of each kind goes alone and the others wait and go as one group, on either database:
  // public first answers of people no delegation touches (lone: inserted together), one answered twice in the group
  // (the second replaces the first), a skip, and a private answer (cast on its own path).
  const likert = await Promise.all(
    [
      answer(second, early.id, 3),
      answer(first, lone.id, 2),
      answer(first, lone.id, 5),
      answer(second, lone.id, 1),
      answer(first, other.id, null),
      answer(first, hidden.id, 4, true),
    ].map((a) => castAnswerCall<{ id: number; value: number | null }>(db, 'cast_likert', a)),
  )
  assert.deepEqual(
    likert.map((r) => [r.outcome, r.vote?.value]),
    [
      ['written', 3],
      ['written', 2],
      ['replaced', 5],
      ['written', 1],
      ['written', null],
      ['written', 4],
    ],
  )
  assert.equal(likert[1]!.vote!.id, likert[2]!.vote!.id, 'the second answer replaced the row the first inserted')
  const picks = await Promise.all(
    [
      answer(mcq.choiceIds[0]!, early.id, 5),
      answer(mcq.choiceIds[0]!, lone.id, 5),
      answer(mcq.choiceIds[1]!, lone.id, 5),
      answer(mcq.choiceIds[1]!, other.id, 5),
    ].map((a) => castAnswerCall<{ choice_id: number }>(db, 'cast_pick', a)),
  )
  assert.deepEqual(
    picks.map((r) => [r.outcome, r.vote?.choice_id]),
    [
      ['written', mcq.choiceIds[0]],
      ['written', mcq.choiceIds[0]],
      ['replaced', mcq.choiceIds[1]],
      ['written', mcq.choiceIds[1]],
    ],
  )
  const { rows } = await sql<{ transactions: number }>`
    SELECT count(DISTINCT xmin::text)::int AS transactions FROM question_votes WHERE question_id = ${first}`.execute(db)
  assert.equal(rows[0]!.transactions, 1, "the group's answers to the first question in its one transaction")
  const history = await db.selectFrom('question_vote_history').select(['value']).where('user_id', '=', lone.id).execute()
  assert.deepEqual(history, [{ value: 2 }])

  // Through HTTP: each reads their own answer, the figures count each answer once, the counters each person's.
  const token = await t.tokenFor(lone.id)
  const mine = (await t.get(`/api/questions/${first}/`, { authorization: `Token ${token}` })).json()
  assert.deepEqual(
    mine.my_vote.map((vote: { value: number }) => vote.value),
    [5],
  )
  const figures = (await t.get(`/api/questions/${first}/`)).json()
  // Skips are counted apart from the values (docs/statistics.md).
  assert.deepEqual([figures.direct_vote_count, figures.direct_skipped], [2, 1])
  const choices = (await t.get(`/api/questions/${mcq.id}/`)).json().choices
  assert.deepEqual(
    choices.map((choice: { direct_vote_count: number }) => choice.direct_vote_count),
    [1, 2],
  )
  const shown = (await t.get(`/api/users/${lone.id}/`)).json()
  assert.deepEqual([shown.count_votes, shown.count_question_votes, shown.count_choice_votes], [3, 2, 1])
  await assertStoredEqualsRecomputed(db, 'after lone first answers inserted together')
})
