import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { openSse, type SseStream } from '../helpers/sse.ts'

/**
 * Liquid figures and representations around a private answer by someone who delegates (issue: private stays
 * private). With MIN_CELL_SIZE 5, a question's private answers count only from the fifth on; until then, what
 * anyone else reads must be what they read before, byte for byte: the liquid figures too (the delegator's vote
 * still counts where their chain took it), orderings by them, the live stream, and the representation their own
 * delegators poll.
 */
let t: TestApp
let base: string
const people: Record<string, { id: number; token: string }> = {}
const NAMES = ['author', 'trustee', 'dora', 'ed', 'fay', 'stranger', 'staff', 'p1', 'p2', 'q1', 'q2', 'q3', 'q4'] as const
const OBSERVERS = ['anonymous', 'stranger', 'ed', 'staff'] as const
const streams: SseStream[] = []
let tag = 0

before(async () => {
  t = await createTestApp('empty', { LIVE_INTERVAL_MS: '50', LIVE_HEARTBEAT_MS: '60000' })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, { username: `liq_${name}`, is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  tag = (await insertTag(t.database.db, 'Moorings')).id
})
after(async () => {
  for (const stream of streams) stream.close()
  await t.close()
})

const headers = (who: string): Record<string, string> => (who === 'anonymous' ? {} : { authorization: `Token ${people[who].token}` })
const send = async (who: string, url: string, body: unknown) => {
  const response = await t.send('POST', url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${url}: ${response.statusCode} ${response.body}`)
  return response.json()
}
const ask = (body: Record<string, unknown>) => send('author', '/api/questions/', { tags: [{ tag: { id: tag } }], ...body })
const rate = (who: string, question: number, value: number, isPrivate = false) =>
  send(who, '/api/question_votes/', { object_id: question, value, private: isPrivate })
const choose = (who: string, choice: number, isPrivate = false) =>
  send(who, '/api/question_choice_votes/', { object_id: choice, value: 5, private: isPrivate })
const delegate = (who: string, question: number, trustee: string) =>
  send(who, '/api/question_delegation/', { question, trustee: people[trustee].id })

/** Everything an observer reads of the question: detail, listing, choices, an ordering by a liquid figure. */
async function observe(who: string, question: number, other: number): Promise<string[]> {
  const get = async (url: string) => (await t.get(url, headers(who))).body
  const strip = (body: string) => {
    const { my_vote: _m, their_vote: _t, ...rest } = JSON.parse(body)
    return JSON.stringify(rest)
  }
  const ids = `id__in=${question},${other}`
  return [
    strip(await get(`/api/questions/${question}/`)),
    await get(`/api/questions/?${ids}&ordering=-liquid_vote_count`),
    await get(`/api/questions/?${ids}&ordering=liquid_maximum`),
    await get(`/api/question_choices/?question=${question}`),
    await get(`/api/question_stats/${question}/`),
  ].map((body) => body.replace(/"my_vote":\[[^\]]*\],?|"their_vote":\[[^\]]*\],?/g, ''))
}
const observeAll = (question: number, other: number) => Promise.all(OBSERVERS.map((who) => observe(who, question, other)))

/** The first place two readings differ, as a path and both values: a readable failure. */
function difference(a: unknown, b: unknown, path = ''): string | null {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return a === b ? null : `${path}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`
  }
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const found = difference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`)
    if (found) return found
  }
  return null
}

function assertUnchanged(before: string[][], afterwards: string[][], moment: string) {
  OBSERVERS.forEach((who, i) =>
    before[i].forEach((body, j) => {
      if (afterwards[i][j] !== body)
        assert.fail(`${who} sees a change ${moment}: ${difference(JSON.parse(body), JSON.parse(afterwards[i][j]!))}`)
    }),
  )
}

describe('a delegator answers privately: the liquid figures stay as they were', () => {
  test('likert: trustee public, dora delegates to the trustee and ed to dora; dora, then ed, answer privately', async () => {
    const question = (await ask({ question: 'Should moorings be free in winter?' })).id
    const other = (await ask({ question: 'Should the quay have benches?' })).id
    await rate('p1', other, 3)
    await delegate('dora', question, 'trustee')
    await delegate('ed', question, 'dora')
    await rate('trustee', question, 4)
    await rate('p1', question, 2)
    const before = await observeAll(question, other)
    const shown = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([shown.liquid_high, shown.liquid_low, shown.liquid_vote_count], [3, 1, 4], 'the trustee carries dora and ed')
    const representation = (await t.get(`/api/questions/${question}/representation/`, headers('ed'))).body
    assert.equal(JSON.parse(representation).outcome, 'represented')

    await rate('dora', question, 1, true)
    const afterDora = await observeAll(question, other)
    assertUnchanged(before, afterDora, "after dora's private answer")
    assert.equal((await t.get(`/api/questions/${question}/representation/`, headers('ed'))).body, representation, "ed's representation")

    await rate('ed', question, 5, true)
    const afterEd = await observeAll(question, other)
    assertUnchanged(before, afterEd, "after ed's private answer too")

    // Dora sees her own answer; the figures beside it are everyone's.
    const own = await t.json(`/api/questions/${question}/`, headers('dora'))
    assert.deepEqual(
      own.my_vote.map((vote: any) => [vote.value, vote.private]),
      [[1, true]],
    )
    assert.equal(own.liquid_high, 3)
  })

  test('multiple choice: the delegator picks another choice privately', async () => {
    const asked = await ask({ question: 'Where should the new slip go?', choices: [{ text: 'North' }, { text: 'South' }] })
    const question = asked.id
    const other = (await ask({ question: 'Should the slip be lit?' })).id
    const [north, south] = asked.choices.map((choice: { id: number }) => choice.id)
    await delegate('fay', question, 'trustee')
    await choose('trustee', north)
    const before = await observeAll(question, other)
    const choices = (await t.json(`/api/question_choices/?question=${question}`)).results
    assert.equal(choices.find((c: any) => c.id === north).liquid_vote_count, 2)
    await choose('fay', south, true)
    const afterwards = await observeAll(question, other)
    assertUnchanged(before, afterwards, "after fay's private pick")
  })

  test('the live stream sends nothing for it; the fifth private answer releases them all at once', async () => {
    const question = (await ask({ question: 'Should the harbour master be elected?' })).id
    await delegate('dora', question, 'trustee')
    await rate('trustee', question, 4)
    const stream = await openSse(`${base}/api/questions/${question}/live/`)
    streams.push(stream)
    const first = await stream.next()
    assert.equal(first.data.liquid_high, 2)
    await rate('dora', question, 1, true)
    await new Promise((resolve) => setTimeout(resolve, 600))
    assert.equal(stream.events.length, 1, `events after a private answer: ${JSON.stringify(stream.events.slice(1))}`)

    for (const who of ['q1', 'q2', 'q3', 'q4']) await rate(who, question, 2, true)
    const shown = await t.json(`/api/questions/${question}/`)
    assert.deepEqual(
      [shown.liquid_minimum, shown.liquid_low, shown.liquid_high, shown.direct_vote_count],
      [1, 4, 1, 6],
      "from the fifth: dora's answer counts, and her vote no longer goes to the trustee",
    )
  })
})

describe("a trustee's private answer: the representation tells no moment", () => {
  test('ed, who delegates to dora, sees no change when she answers privately; from the fifth it says private_answer', async () => {
    const question = (await ask({ question: 'Should the fish market open on Sundays?' })).id
    await delegate('ed', question, 'dora')
    await delegate('dora', question, 'trustee')
    await rate('trustee', question, 3)
    const read = async () => (await t.get(`/api/questions/${question}/representation/`, headers('ed'))).body
    const before = await read()
    assert.equal(JSON.parse(before).outcome, 'represented')
    await rate('dora', question, 5, true)
    assert.equal(await read(), before)
    for (const who of ['q1', 'q2', 'q3', 'q4']) await rate(who, question, 2, true)
    const released = JSON.parse(await read())
    assert.equal(released.outcome, 'private_answer')
    assert.equal(released.representative_answer ?? null, null, 'no value')
  })
})
