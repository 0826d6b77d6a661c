import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'

/**
 * Counters and times around a private answer, attacked as an observer would: watching a person's answer counters
 * and last answer time, or the order of questions by answer time, before and after they answer a quiet question
 * privately. Nothing others see may move; the person and staff see every answer.
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const COUNTERS = ['count_votes', 'count_question_votes', 'count_choice_votes', 'last_answer_time'] as const
type Counters = Record<(typeof COUNTERS)[number], number | string>

const as = (who: string | null): Record<string, string> => (who ? { authorization: `Token ${people[who].token}` } : {})
const send = async (who: string, method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => {
  const response = await t.send(method, url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
  return response.statusCode === 204 ? null : response.json()
}
const pick = (user: Record<string, unknown>): Counters => Object.fromEntries(COUNTERS.map((name) => [name, user[name]])) as Counters

let ids: { likert: number; quiet: number; busy: number; mcq: number; choices: number[]; collection: number; asked: number }

/** v's counters as `who` reads them, through every place a user is shown; all must agree. */
async function seen(who: string | null): Promise<Counters> {
  const v = people.v.id
  const places = [
    (await t.json(`/api/users/${v}/`, as(who))) as Record<string, unknown>,
    (await t.json(`/api/user_politician/${v}/`, as(who))) as Record<string, unknown>,
    (await t.json(`/api/users/?id=${v}`, as(who))).results[0],
    (await t.json(`/api/questions/${ids.asked}/`, as(who))).user,
    (await t.json(`/api/question_collections/${ids.collection}/`, as(who))).user,
  ]
  const first = pick(places[0])
  for (const place of places.slice(1)) assert.deepEqual(pick(place), first, `every user object agrees for ${who ?? 'anonymous'}`)
  return first
}

const OBSERVERS = [null, 'stranger', 'friend'] as const
const FULL = ['v', 'staff'] as const

async function everyone(): Promise<Map<string | null, Counters>> {
  const out = new Map<string | null, Counters>()
  for (const who of [...OBSERVERS, ...FULL]) out.set(who, await seen(who))
  return out
}

async function assertCheckClean(label: string) {
  const differences = await storedFigureDifferences(t.database.db)
  assert.deepEqual(differences, [], `${label}: civic-survey check reports differences`)
}

/** Questions in order of their latest answer as `who` sees it, on a listing narrowed to the two watched ones. */
const byAnswerTime = async (who: string | null, base = '/api/questions/') =>
  (await t.json(`${base}?id__in=${ids.quiet},${ids.busy}&ordering=-votes__created_at`, as(who))).results.map(
    (question: { id: number }) => question.id,
  )

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['v', 'stranger', 'friend', 'staff', 'author', 'w']) {
    const row = await insertUser(t.database.db, { username: `ca_${name}`, is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const friendship = await send('friend', 'POST', '/api/friends/', { friend: people.v.id })
  await send('v', 'POST', `/api/friends/${friendship.id}/accept/`)
  const ask = async (who: string, body: Record<string, unknown>) => (await send(who, 'POST', '/api/questions/', body)).id as number
  const likert = await ask('author', { question: 'Should the town hall open on Saturdays?' })
  const quiet = await ask('author', { question: 'Should the old mill be listed?' })
  const busy = await ask('author', { question: 'Should parking be free on Sundays?' })
  const mcq = await ask('author', {
    question: 'Which bridge should be repaired first?',
    subtype: 'mcq',
    choices: [{ text: 'North' }, { text: 'South' }],
  })
  const choices = (await t.json(`/api/questions/${mcq}/`)).choices.map((choice: { id: number }) => choice.id)
  const asked = await ask('v', { question: 'Should the market move to the square?' })
  const collection = (await send('v', 'POST', '/api/question_collections/', { name: 'My questions' })).id
  ids = { likert, quiet, busy, mcq, choices, collection, asked }
  // v has one public answer; w answers the quiet question, then the busy one: the busy one is the latest answered.
  await send('v', 'POST', '/api/question_votes/', { object_id: likert, value: 4, private: false })
  await send('w', 'POST', '/api/question_votes/', { object_id: quiet, value: 2, private: false })
  await send('w', 'POST', '/api/question_votes/', { object_id: busy, value: 3, private: false })
})
after(() => t.close())

describe('a private answer moves no counter or time that others see', () => {
  test('casting, editing and withdrawing a private likert answer', async () => {
    const before = await everyone()
    const vote = await send('v', 'POST', '/api/question_votes/', { object_id: ids.quiet, value: 5, private: true })
    let now = await everyone()
    for (const who of OBSERVERS) assert.deepEqual(now.get(who), before.get(who), `${who ?? 'anonymous'} sees nothing move`)
    for (const who of FULL) {
      assert.equal(now.get(who)!.count_votes, (before.get(who)!.count_votes as number) + 1, `${who} sees the answer counted`)
      assert.equal(now.get(who)!.count_question_votes, (before.get(who)!.count_question_votes as number) + 1)
      assert.equal(now.get(who)!.last_answer_time, vote.modified_at)
    }
    await assertCheckClean('after a private answer')

    // A new value, then its withdrawal: still nothing for observers.
    const edited = await send('v', 'PATCH', `/api/question_votes/${vote.id}/`, { value: 1 })
    now = await everyone()
    for (const who of OBSERVERS) assert.deepEqual(now.get(who), before.get(who))
    assert.equal(now.get('v')!.last_answer_time, edited.modified_at)
    await assertCheckClean('after editing a private answer')
    await send('v', 'DELETE', `/api/question_votes/${vote.id}/`)
    now = await everyone()
    for (const who of OBSERVERS) assert.deepEqual(now.get(who), before.get(who))
    for (const who of FULL) assert.equal(now.get(who)!.count_votes, before.get(who)!.count_votes)
    await assertCheckClean('after withdrawing a private answer')
  })

  test('a private pick', async () => {
    const before = await everyone()
    const vote = await send('v', 'POST', '/api/question_choice_votes/', { object_id: ids.choices[0], value: 5, private: true })
    const now = await everyone()
    for (const who of OBSERVERS) assert.deepEqual(now.get(who), before.get(who))
    for (const who of FULL) assert.equal(now.get(who)!.count_choice_votes, (before.get(who)!.count_choice_votes as number) + 1)
    await assertCheckClean('after a private pick')
    await send('v', 'DELETE', `/api/question_choice_votes/${vote.id}/`)
    assert.deepEqual(await everyone(), before)
    await assertCheckClean('after withdrawing a private pick')
  })

  test('going public shows the answer; going private again takes it back to the previous public one', async () => {
    const before = await everyone()
    const vote = await send('v', 'POST', '/api/question_votes/', { object_id: ids.quiet, value: 5, private: true })
    const shown = await send('v', 'PATCH', `/api/question_votes/${vote.id}/`, { private: false })
    let now = await everyone()
    for (const who of [...OBSERVERS, ...FULL]) {
      assert.equal(now.get(who)!.count_question_votes, (before.get(who)!.count_question_votes as number) + 1)
      assert.equal(now.get(who)!.last_answer_time, shown.modified_at, `${who ?? 'anonymous'} sees the public answer's time`)
    }
    await assertCheckClean('after going public')
    await send('v', 'PATCH', `/api/question_votes/${vote.id}/`, { private: true })
    now = await everyone()
    for (const who of OBSERVERS) assert.deepEqual(now.get(who), before.get(who), 'back to the public answers only')
    await assertCheckClean('after going private again')
    await send('v', 'DELETE', `/api/question_votes/${vote.id}/`)
    await assertCheckClean('after withdrawing')
  })

  test('sorting people by their counters does not tell a private answer either', async () => {
    // Publicly w has more answers, and later ones, than v; counting v's private answer too, v would tie on
    // counts (and win the tie on id) and be the latest to answer.
    const order = async (who: string | null, field: string) =>
      (await t.json(`/api/users/?id__in=${people.v.id},${people.w.id}&ordering=${field},id`, as(who))).results.map(
        (user: { id: number }) => user.id,
      )
    const fields = ['-count_votes', '-count_question_votes', '-last_answer_time']
    const before = new Map<string, unknown>()
    for (const field of fields) for (const who of OBSERVERS) before.set(`${who}${field}`, await order(who, field))
    const vote = await send('v', 'POST', '/api/question_votes/', { object_id: ids.busy, value: 1, private: true })
    for (const field of fields)
      for (const who of OBSERVERS) assert.deepEqual(await order(who, field), before.get(`${who}${field}`), `${who} ordering=${field}`)
    // Staff sorts by every answer: v now has the most recent one.
    assert.deepEqual(await order('staff', '-last_answer_time'), [people.v.id, people.w.id])
    await send('v', 'DELETE', `/api/question_votes/${vote.id}/`)
    await assertCheckClean('after sorting people')
  })
})

describe('ordering by answer time does not move for a private answer', () => {
  test('each question by its latest answer: public ones for others, every one for staff and the author', async () => {
    const publicOrder = [ids.busy, ids.quiet]
    for (const who of [...OBSERVERS, 'v', 'staff']) assert.deepEqual(await byAnswerTime(who), publicOrder)
    const vote = await send('v', 'POST', '/api/question_votes/', { object_id: ids.quiet, value: 5, private: true })
    for (const who of OBSERVERS) {
      assert.deepEqual(await byAnswerTime(who), publicOrder, `${who ?? 'anonymous'}: the quiet question stays behind`)
      assert.deepEqual(await byAnswerTime(who, '/api/question_stats/'), publicOrder, 'question_stats too')
    }
    assert.deepEqual(await byAnswerTime('staff'), [ids.quiet, ids.busy])
    assert.deepEqual(await byAnswerTime('v'), [ids.quiet, ids.busy], 'the author sees their own answer')
    // Narrowed to v's answers: the private one sorts only for v and staff (and is listed only for them).
    const narrowed = async (who: string | null) =>
      (
        await t.json(`/api/questions/?answered_by=${people.v.id}&id__in=${ids.quiet},${ids.likert}&ordering=-votes__created_at`, as(who))
      ).results.map((question: { id: number }) => question.id)
    for (const who of OBSERVERS) assert.deepEqual(await narrowed(who), [ids.likert])
    assert.deepEqual(await narrowed('v'), [ids.quiet, ids.likert])
    await send('v', 'DELETE', `/api/question_votes/${vote.id}/`)
    await assertCheckClean('after the ordering checks')
  })
})
