import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * The breakdowns on the seeded tiny data agree with the raw rows and with the questions' stored figures, with
 * nothing withheld (MIN_CELL_SIZE=1: the arithmetic; test/disclosure/demographics-attacks.test.ts runs the rules).
 */
let t: TestApp
before(async () => {
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1' })
})

/** Answers of the question whose author has no age band at answering (they count in total_votes, in no cell). */
async function unknownAges(id: number, table: 'question_votes' | 'question_choice_votes') {
  const { rows } = await sql<{ value: number | null; choice_id: number | null; n: number }>`
    SELECT answers.value, ${sql.raw(table === 'question_votes' ? 'NULL::int' : 'answers.choice_id')} AS choice_id, count(*)::int AS n
    FROM ${sql.table(table)} AS answers JOIN users ON users.id = answers.user_id
    WHERE answers.question_id = ${id}
      AND (users.dob IS NULL OR users.dob > (answers.created_at AT TIME ZONE 'UTC')::date
           OR date_part('year', age((answers.created_at AT TIME ZONE 'UTC')::date, users.dob)) > 130)
    GROUP BY 1, 2`.execute(t.database.db)
  return rows
}
after(() => t.close())

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']

async function busiest(subtype: string) {
  const db = t.database.db
  const table = subtype === 'mcq' ? 'question_choice_votes' : 'question_votes'
  const row = await db
    .selectFrom(table)
    .innerJoin('questions', 'questions.id', `${table}.question_id`)
    .select((eb) => [`${table}.question_id as id`, eb.fn.countAll<number>().as('n')])
    .where('questions.publish', '=', true)
    .where('questions.subtype', '=', subtype)
    .groupBy(`${table}.question_id`)
    .orderBy('n', 'desc')
    .orderBy(`${table}.question_id`)
    .executeTakeFirst()
  return row ? Number(row.id) : undefined
}

test('a seeded likert question: the cells and the answers of unknown age add up to its stored direct counts, value by value', async (context) => {
  const id = await busiest('likert')
  if (id === undefined) return context.skip('the tiny seed has no likert answers')
  const question = await t.json(`/api/questions/${id}/`)
  const body = await t.json(`/api/question_demographics/?question=${id}`)
  const byValue = new Map<number | null, number>()
  for (const cell of body.ageggendervalues) byValue.set(cell.value, (byValue.get(cell.value) ?? 0) + cell.id__count)
  for (const row of await unknownAges(id, 'question_votes')) byValue.set(row.value, (byValue.get(row.value) ?? 0) + row.n)
  LEVELS.forEach((level, i) => assert.equal(byValue.get(i + 1) ?? 0, question[`direct_${level}`], level))
  assert.equal(byValue.get(null) ?? 0, question.direct_skipped)
  assert.equal(body.total_votes, question.direct_vote_count + question.direct_skipped)
})

test('a seeded question: each area counts its respondents once, from the raw rows', async (context) => {
  const id = await busiest('likert')
  if (id === undefined) return context.skip('the tiny seed has no likert answers')
  const db = t.database.db
  const voters = await db.selectFrom('question_votes').select(['user_id', 'value', 'private']).where('question_id', '=', id).execute()
  const users = await db.selectFrom('users').select(['id', 'country_id', 'region_id', 'district_id']).execute()
  const geos = await db.selectFrom('user_geos').select(['user_id', 'area_id']).execute()
  const parents = new Map((await db.selectFrom('areas').select(['id', 'parent_id']).execute()).map((a) => [a.id, a.parent_id]))
  /** A private answer's areas: its region and the region's ancestors, the district under that region, else the country. */
  const lineOf = (user: (typeof users)[number]) => {
    if (user.region_id === null) return [user.country_id]
    const line: (number | null)[] = []
    for (let area: number | null = user.region_id; area !== null && !line.includes(area); area = parents.get(area) ?? null) line.push(area)
    if (user.district_id !== null && parents.get(user.district_id) === user.region_id) line.push(user.district_id)
    return line
  }
  const expected = new Map<number, number>()
  for (const vote of voters) {
    const user = users.find((u) => u.id === vote.user_id)!
    const places = new Set(
      vote.private
        ? lineOf(user)
        : [user.country_id, user.region_id, user.district_id, ...geos.filter((g) => g.user_id === user.id).map((g) => g.area_id)],
    )
    for (const place of places) if (place !== null) expected.set(place, (expected.get(place) ?? 0) + 1)
  }
  const body = await t.json(`/api/question_geographics/?question=${id}`)
  assert.deepEqual(
    body.results.map((r: { area: { id: number }; count: number }) => [r.area.id, r.count]),
    [...expected].sort((a, b) => a[0] - b[0]),
  )
})

test("a seeded multiple-choice question: the cells per choice add up to each choice's stored counts", async (context) => {
  const id = await busiest('mcq')
  if (id === undefined) return context.skip('the tiny seed has no choice answers')
  const question = await t.json(`/api/questions/${id}/`)
  const body = await t.json(`/api/question_demographics/?question=${id}`)
  const unknown = await unknownAges(id, 'question_choice_votes')
  for (const choice of question.choices) {
    const cells = body.ageggendervalues.filter((cell: { object__text: string }) => cell.object__text === choice.text)
    const rest = unknown.filter((row) => row.choice_id === choice.id).reduce((sum, row) => sum + row.n, 0)
    assert.equal(
      cells.reduce((sum: number, cell: { id__count: number }) => sum + cell.id__count, rest),
      choice.direct_vote_count + (choice.direct_skipped ?? 0),
      choice.text,
    )
  }
})

test('the browsable page of a breakdown renders its JSON', async () => {
  const id = await busiest('likert')
  const response = await t.get(`/api/question_demographics/?question=${id ?? 1}&format=api`)
  assert.ok([200, 404].includes(response.statusCode))
  assert.match(String(response.headers['content-type']), /^text\/html/)
})
