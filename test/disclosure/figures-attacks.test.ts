import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { openSse, type SseStream } from '../helpers/sse.ts'

/**
 * A question's own figures, attacked as an observer would read them (anonymous, a stranger, a friend of the voter,
 * staff): every place they are published, before and after one private answer. With MIN_CELL_SIZE 5, a question's
 * private answers count only from the fifth on, all at once.
 */
let t: TestApp
let base: string
const people: Record<string, { id: number; token: string }> = {}
const NAMES = ['author', 'vera', 'stranger', 'friend', 'staff', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 's1', 's2', 's3', 's4', 's5'] as const
const OBSERVERS = ['anonymous', 'stranger', 'friend', 'staff'] as const
const streams: SseStream[] = []
let tag = 0

before(async () => {
  t = await createTestApp('empty', { LIVE_INTERVAL_MS: '50', LIVE_HEARTBEAT_MS: '60000' })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, { username: `fig_${name}`, is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  await t.database.db
    .insertInto('friendships')
    .values({ user_id: people.vera.id, friend_id: people.friend.id, accepted_at: new Date() })
    .execute()
  tag = (await insertTag(t.database.db, 'Harbours')).id
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
const rate = (who: string, question: number, value: number | null, isPrivate = false) =>
  send(who, '/api/question_votes/', { object_id: question, value, ...(value === null ? { skipped: true } : {}), private: isPrivate })
const choose = (who: string, choice: number, isPrivate = false) =>
  send(who, '/api/question_choice_votes/', { object_id: choice, value: 5, private: isPrivate })

const FIGURE = /^(direct|liquid)_|^polarisation$/
const figuresOf = (row: Record<string, unknown>): Record<string, any> =>
  Object.fromEntries(Object.entries(row).filter(([name]) => FIGURE.test(name)))

/** Everything an observer can read of the question's figures, from every place that publishes them. */
async function observe(who: string, question: number): Promise<any> {
  const get = (url: string) => t.json(url, headers(who))
  const detail = await get(`/api/questions/${question}/`)
  const [listed] = (await get(`/api/questions/?id=${question}`)).results
  const stats = await get(`/api/question_stats/${question}/`)
  const choices = (await get(`/api/question_choices/?question=${question}`)).results
  const tags = (await get(`/api/question_tags/?question=${question}`)).results
  const light = (await get(`/api/next_question_light/?id__in=${question}`)).results
  const next = (await get(`/api/next_question/?id__in=${question}`)).results
  const { my_vote: _mine, their_vote: _theirs, ...shownDetail } = detail
  return {
    detail: { ...figuresOf(shownDetail), choices: detail.choices.map(figuresOf), tags: detail.tags.map(figuresOf) },
    listed: { ...figuresOf(listed), choices: listed.choices.map(figuresOf), tags: listed.tags.map(figuresOf) },
    stats: {
      ...figuresOf(stats),
      counts: [stats.answer_count, stats.private_answer_count, stats.replaced_answer_count, stats.first_answer_at, stats.last_answer_at],
      choices: stats.choices.map(figuresOf),
      tags: stats.tags.map(figuresOf),
    },
    choices: choices.map(figuresOf),
    choiceDetails: await Promise.all(choices.map(async (choice: any) => figuresOf(await get(`/api/question_choices/${choice.id}/`)))),
    tags: tags.map(figuresOf),
    light: light.map((row: any) => ({ ...figuresOf(row), choices: row.choices.map(figuresOf) })),
    next: next.map((row: any) => ({ ...figuresOf(row), choices: row.choices.map(figuresOf) })),
  }
}

const observeAll = async (question: number) => Promise.all(OBSERVERS.map((who) => observe(who, question)))

describe("a tiny question's figures around one private answer", () => {
  test('no observer sees any change: not anonymous, a stranger, a friend of the voter, nor staff', async () => {
    const question = (await ask({ question: 'Should the harbour wall be raised?' })).id
    await rate('p1', question, 4)
    await rate('p2', question, 2)
    const before = await observeAll(question)
    assert.equal(before[0].detail.direct_vote_count, 2)
    assert.deepEqual(before[1], before[0], 'everyone sees the same figures')

    await rate('vera', question, 5, true)
    const [questionTag] = (await t.json(`/api/questions/${question}/`)).tags
    await send('vera', '/api/question_tag_votes/', { object_id: questionTag.id, value: 1, private: true })
    const afterwards = await observeAll(question)
    OBSERVERS.forEach((who, i) => assert.deepEqual(afterwards[i], before[i], `${who} sees a change`))
    assert.equal(afterwards[0].stats.counts[1], 0, 'no private answer is counted where one is too few')

    // Vera herself sees her answer in my_vote, beside the same figures as everyone.
    const own = await t.json(`/api/questions/${question}/`, headers('vera'))
    assert.deepEqual(
      own.my_vote.map((vote: any) => [vote.value, vote.private]),
      [[5, true]],
    )
    assert.equal(own.direct_vote_count, 2)
    assert.equal(own.direct_maximum, 0)
  })

  test('a public answer after it moves the figures by that public answer alone', async () => {
    const question = (await ask({ question: 'Should ferries run at night?' })).id
    await rate('p1', question, 3)
    await rate('vera', question, 1, true)
    await rate('p2', question, null)
    const shown = await t.json(`/api/questions/${question}/`)
    assert.deepEqual(
      [shown.direct_minimum, shown.direct_medium, shown.direct_skipped, shown.direct_vote_count, shown.liquid_vote_count],
      [0, 1, 1, 1, 1],
    )
    assert.equal(shown.direct_value, 3)
  })
})

describe('private answers count from the fifth, all at once', () => {
  test('k public answers and one private: the figures of the public answers', async () => {
    const question = (await ask({ question: 'Should the lighthouse stay lit?' })).id
    for (const [i, who] of ['p1', 'p2', 'p3', 'p4', 'p5'].entries()) await rate(who, question, 1 + (i % 2))
    const before = await observe('anonymous', question)
    await rate('vera', question, 5, true)
    const afterwards = await observe('anonymous', question)
    assert.deepEqual(afterwards, before)
    assert.equal(afterwards.detail.direct_vote_count, 5)
    assert.equal(afterwards.detail.direct_maximum, 0)
    assert.deepEqual(afterwards.stats.counts.slice(0, 2), [5, 0])
  })

  test('the fifth private answer releases all five together', async () => {
    const question = (await ask({ question: 'Should the pier be rebuilt?' })).id
    await rate('p1', question, 3)
    const publicOnly = await observe('stranger', question)
    for (const who of ['s1', 's2', 's3', 's4']) {
      await rate(who, question, 5, true)
      assert.deepEqual(await observe('stranger', question), publicOnly, `after ${who}'s private answer`)
    }
    await rate('s5', question, 1, true)
    const released = await observe('stranger', question)
    assert.deepEqual(
      [released.detail.direct_minimum, released.detail.direct_medium, released.detail.direct_maximum, released.detail.direct_vote_count],
      [1, 1, 4, 6],
    )
    assert.deepEqual(released.light[0].liquid_vote_count, 6)
    assert.deepEqual(released.stats.counts.slice(0, 2), [6, 5])
    assert.deepEqual(await observe('anonymous', question), await observe('staff', question))
  })
})

describe('choices of a multiple-choice question', () => {
  test("a private choice moves no choice's figures, anywhere", async () => {
    const question = await ask({ question: 'Which quay should be paved first?', choices: [{ text: 'North quay' }, { text: 'South quay' }] })
    const [north, south] = question.choices.map((choice: { id: number }) => choice.id)
    await choose('p1', north)
    const before = await observeAll(question.id)
    await choose('vera', south, true)
    const afterwards = await observeAll(question.id)
    OBSERVERS.forEach((who, i) => assert.deepEqual(afterwards[i], before[i], `${who} sees a change`))
    assert.deepEqual(
      afterwards[0].choices.map((choice: any) => choice.direct_vote_count),
      [1, 0],
    )
    assert.deepEqual(
      afterwards[0].light[0].choices.map((choice: any) => choice.liquid_vote_count),
      [1, 0],
    )
  })
})

describe('live streams on a quiet question', () => {
  const open = async (path: string) => {
    const stream = await openSse(`${base}${path}`)
    streams.push(stream)
    return stream
  }
  const quiet = () => new Promise((resolve) => setTimeout(resolve, 600))

  test('a private answer sends nothing on the question’s or its collection’s stream; the next public one shows alone', async () => {
    const question = (await ask({ question: 'Should the slipway be closed?' })).id
    await rate('p1', question, 2)
    const collection = (await send('author', '/api/question_collections/', { name: 'Harbour questions' })).id
    await send('author', '/api/question_collection_items/', { parent: collection, object_id: question, type: 'Q' })
    const own = await open(`/api/questions/${question}/live/`)
    const held = await open(`/api/question_collections/${collection}/live/`)
    const first = await own.next()
    const snapshot = await held.next()
    assert.equal(first.data.direct_vote_count, 1)
    assert.equal(snapshot.event, 'snapshot')

    await rate('vera', question, 5, true)
    await quiet()
    assert.equal(own.events.length, 1, `events after a private answer: ${JSON.stringify(own.events.slice(1))}`)
    assert.equal(held.events.length, 1, `events after a private answer: ${JSON.stringify(held.events.slice(1))}`)

    await rate('p2', question, 4)
    const next = await own.until((event) => event.data.direct_vote_count === 2, 'the public answer')
    assert.deepEqual([next.data.direct_low, next.data.direct_high, next.data.direct_maximum, next.data.liquid_maximum], [1, 1, 0, 0])
    const delta = await held.until((event) => event.event === 'figures', 'the public answer on the collection')
    assert.equal(delta.data.questions[0].direct_vote_count, 2)
    assert.equal(delta.data.questions[0].direct_maximum, 0)
  })
})

describe('question_stats around a private answer', () => {
  test('counts and times move with public answers only', async () => {
    const question = (await ask({ question: 'Should moorings be free?' })).id
    await rate('p1', question, 4)
    await rate('p1', question, 3) // the 4 is replaced
    // The tag's votes_count counts answers on every question it carries (a tag counter, not a figure of this question).
    const stats = async (who = 'anonymous') => {
      const body = await t.json(`/api/question_stats/${question}/`, headers(who))
      return { ...body, tags: body.tags.map((tag: any) => ({ ...tag, tag: { ...tag.tag, votes_count: null } })) }
    }
    const before = await stats()
    await new Promise((resolve) => setTimeout(resolve, 20))
    await rate('vera', question, 2, true)
    await rate('vera', question, 1, true) // a replaced private answer
    const afterwards = await stats()
    assert.deepEqual(afterwards, before)
    assert.deepEqual([afterwards.answer_count, afterwards.private_answer_count, afterwards.replaced_answer_count], [1, 0, 1])
    // The private answer shows to its author in her own answers, never in the question's figures.
    assert.deepEqual(await stats('vera'), before)
  })
})
