/**
 * Opinion groups around a private answer, attacked as an observer would (issue 42, items 1 to 3): polling the groups
 * of a collection, a tag and a group (JSON, CSV and SVG) as anonymous, a stranger and staff, before and after one
 * private answer, to learn that someone answered privately (a new computed_at), who (a group one person smaller),
 * or what (centres that depend on the value). Nothing others read may move while no published group counts the
 * answer, and the stored run is not published again. The three scopes share the code but are kept apart, so all
 * three are read.
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'
import { answer as answerAs, campsCollection, rating, type CampPerson } from '../opinion-groups/camps.ts'
import { opinionGroupChecksSettled } from '../../src/modules/opinion-groups/opinion-groups.service.ts'

let t: TestApp
let questions: number[]
let people: CampPerson[] = []
/** The tenth question: the camps' first twelve answered it publicly, the others not at all. */
let extra: number
let scopes: string[] = []
const observers: Record<string, { token: string } | null> = { anonymous: null }

const answer = (person: CampPerson, question: number, value: number, isPrivate = false) => answerAs(t, person, question, value, isPrivate)

before(async () => {
  t = await createTestApp('empty', { OPINION_GROUPS_REFRESH_MS: '0' })
  const db = t.database.db
  const camps = await campsCollection(t, 24)
  ;({ questions, people } = camps)
  const author = await insertUser(db)
  extra = (await insertQuestion(db, author.id, { publish: true, subtype: 'likert' })).id
  await db
    .insertInto('question_collection_items')
    .values({ parent_id: camps.collection, question_id: extra, type: 'Q', order: 9 })
    .execute()
  const tag = await insertTag(db)
  const group = await insertGroup(db)
  for (const question of [...questions, extra]) {
    await db.insertInto('question_tags').values({ question_id: question, tag_id: tag.id }).execute()
    await db.updateTable('questions').set({ group_id: group.id }).where('id', '=', question).execute()
  }
  for (const [i, person] of people.slice(0, 12).entries()) await answer(person, extra, rating(person.camp, i % 8, i))
  scopes = [`collection=${camps.collection}`, `tag=${tag.id}`, `group=${group.id}`]
  for (const name of ['stranger', 'staff']) {
    const user = await insertUser(db, { is_staff: name === 'staff' })
    observers[name] = { token: await t.tokenFor(user.id) }
  }
})
after(() => t?.close())

/** Lets every background check see the latest answers: one started before them may still be running. */
async function settled(): Promise<void> {
  for (let round = 0; round < 2; round++) {
    for (const scope of scopes) await t.get(`/api/opinion_groups/?${scope}`)
    await opinionGroupChecksSettled(t.database.db)
  }
}

/** Everything the observers read, by scope, observer and form, after the checks have run. */
async function everythingRead(): Promise<Map<string, string>> {
  await settled()
  const read = new Map<string, string>()
  for (const scope of scopes)
    for (const [name, observer] of Object.entries(observers))
      for (const format of ['json', 'csv', 'svg']) {
        const headers: Record<string, string> = observer ? { authorization: `Token ${observer.token}` } : {}
        const response = await t.get(`/api/opinion_groups/?${scope}&format=${format}`, headers)
        assert.equal(response.statusCode, 200, response.body)
        read.set(`${scope} ${name} ${format}`, response.body)
      }
  return read
}

/** The stored runs: a recompute that is kept shows as a new time, model or publication. */
async function storedRuns() {
  const { rows } = await sql<{ scope: string; computed_at: string; model: string; published: string; signature: string }>`
    SELECT scope, computed_at::text, md5(model::text) AS model, md5(published::text) AS published, signature
    FROM opinion_group_runs ORDER BY scope`.execute(t.database.db)
  assert.equal(rows.length, 3)
  return rows
}
const withoutSignature = (runs: Awaited<ReturnType<typeof storedRuns>>) => runs.map(({ signature: _, ...run }) => run)

/** Where two bodies first differ, with a little context: the bodies themselves are kilobytes. */
function firstDifference(actual: string, expected: string): string {
  let at = 0
  while (at < actual.length && actual[at] === expected[at]) at++
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 60), at + 60))
  return `at ${at}: ${around(actual)} where it was ${around(expected)}`
}

function assertSameReads(after: Map<string, string>, before: Map<string, string>, what: string) {
  assert.deepEqual([...after.keys()], [...before.keys()])
  for (const [key, body] of before) {
    const now = after.get(key)!
    assert.ok(now === body, `${what}: ${key} differs ${firstDifference(now, body)}`)
  }
}

const participantsOf = (reads: Map<string, string>) => scopes.map((scope) => JSON.parse(reads.get(`${scope} anonymous json`)!).participants)

async function newcomer(): Promise<CampPerson> {
  const user = await insertUser(t.database.db)
  return { id: user.id, token: await t.tokenFor(user.id), camp: 'a' }
}

let baseline: Map<string, string>
let baselineRuns: Awaited<ReturnType<typeof storedRuns>>

test('one private answer below the threshold: every byte others read is the same, nothing recomputed', async () => {
  baseline = await everythingRead()
  baselineRuns = await storedRuns()
  const ownPlace = async (person: CampPerson) =>
    (await t.json(`/api/opinion_groups/?${scopes[0]}`, { authorization: `Token ${person.token}` })).me
  // A known person of camp a (public answers to the nine) answers the tenth privately.
  const x = people.find((p, i) => i >= 12 && p.camp === 'a')!
  const placeBefore = await ownPlace(x)
  await answer(x, extra, 1, true)
  assertSameReads(await everythingRead(), baseline, 'after a private answer')
  assert.deepEqual(await storedRuns(), baselineRuns, 'the runs, signatures included, are as they were')
  assert.deepEqual(await ownPlace(x), placeBefore, 'the author still sees their own place')

  // Someone new answers everything privately: placed for themselves alone, and nothing else moves.
  const n = await newcomer()
  for (let q = 0; q < 9; q++) await answer(n, questions[q], rating('a', q, 30), true)
  let me = null
  for (let tries = 0; tries < 50 && !me; tries++) {
    await settled()
    me = await ownPlace(n)
  }
  assert.ok(me, 'the author is placed on the map for themselves')
  assert.equal(me.clustered, false)
  assertSameReads(await everythingRead(), baseline, 'after a newcomer’s private answers')
  assert.deepEqual(await storedRuns(), baselineRuns)
})

test('five people with a private answer, none counted in a group, and one more: nothing moves, participants included', async () => {
  // Two camps of twelve: private answers from three people in camp a's group (two from the first test) and two in
  // camp b's make five, at k, with no group holding k of them.
  const campB = people.filter((p, i) => i >= 12 && p.camp === 'b')
  await answer(people.filter((p, i) => i >= 12 && p.camp === 'a')[1], extra, 2, true)
  await answer(campB[0], extra, 4, true)
  await answer(campB[1], extra, 4, true)
  const five = await everythingRead()
  assert.deepEqual(participantsOf(five), participantsOf(baseline), 'nobody drops out of the count')
  assertSameReads(five, baseline, 'five private answers, none counted')
  assert.deepEqual(withoutSignature(await storedRuns()), withoutSignature(baselineRuns), 'not published again')

  // A sixth, from someone whose public answers everyone knows: they still count in their group by those.
  const y = campB[2]
  await answer(y, extra, 1, true)
  const six = await everythingRead()
  assert.deepEqual(participantsOf(six), participantsOf(baseline), 'the one who answered does not drop out of the count')
  assertSameReads(six, baseline, 'a sixth private answer, none counted')
  assert.deepEqual(withoutSignature(await storedRuns()), withoutSignature(baselineRuns), 'not published again')
})

test('the value of a private answer no group counts changes no byte: 1 and 5 publish the same', async () => {
  const y = people.filter((p, i) => i >= 12 && p.camp === 'b')[2]
  const runs = withoutSignature(await storedRuns())
  await answer(y, extra, 5, true)
  const five = await everythingRead()
  await answer(y, extra, 1, true)
  const one = await everythingRead()
  // The figures first (centres, shares, map), whatever the time they carry; then every byte.
  const figures = (reads: Map<string, string>) =>
    scopes.map((scope) => {
      const { computed_at: _, ...published } = JSON.parse(reads.get(`${scope} anonymous json`)!)
      return published
    })
  assert.deepEqual(figures(one), figures(five), 'the centres and the map do not depend on the value')
  assertSameReads(five, one, 'a private 5 against a private 1')
  assertSameReads(five, baseline, 'against no private answer at all')
  assert.deepEqual(withoutSignature(await storedRuns()), runs, 'not published again')
})
