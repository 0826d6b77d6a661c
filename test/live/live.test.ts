import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { openSse, type SseStream } from '../helpers/sse.ts'
import { mcqQuestion } from '../votes/support.ts'
import { answer as answerAs, campsCollection, rating } from '../opinion-groups/camps.ts'
import { FIGURE_COLUMNS } from '../../src/modules/live/live-figures.repository.ts'

let t: TestApp
let base: string
const people: Record<string, { id: number; token: string }> = {}
const NAMES = ['author', 'ann', 'ben', 'cat', 'dan', 'staff'] as const
const streams: SseStream[] = []

before(async () => {
  t = await createTestApp('tiny', { LIVE_INTERVAL_MS: '200', LIVE_HEARTBEAT_MS: '300', CORS_ORIGINS: 'https://app.example' })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, { username: `live_${name}`, is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
})
after(async () => {
  for (const stream of streams) stream.close()
  await t.close()
})

const open = async (path: string, who?: string, headers: Record<string, string> = {}) => {
  const stream = await openSse(`${base}${path}`, who ? { authorization: `Token ${people[who].token}`, ...headers } : headers)
  streams.push(stream)
  return stream
}
const send = async (who: string, method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => {
  const response = await t.send(method, url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
  return response.statusCode === 204 ? null : response.json()
}
const rate = (who: string, question: number, value: number | null) =>
  send(who, 'POST', '/api/question_votes/', { object_id: question, value })

/** What the detail shows of the figures, in the stream's shape. */
async function detailFigures(questionId: number): Promise<Record<string, any>> {
  const detail = await t.json(`/api/questions/${questionId}/`)
  const pick = (row: Record<string, unknown>) => Object.fromEntries(FIGURE_COLUMNS.map((name) => [name, row[name]]))
  return {
    id: detail.id,
    ...pick(detail),
    choices: detail.choices.map((choice: any) => ({
      id: choice.id,
      text: choice.text,
      store_number: choice.store_number,
      ...pick(choice),
    })),
  }
}
const published = async () => (await insertQuestion(t.database.db, people.author.id, { subtype: 'likert', publish: true })).id

describe('a question’s stream', () => {
  test('opens with the detail’s figures, then sends each change, direct and liquid, as the detail shows it', async () => {
    const question = await published()
    const stream = await open(`/api/questions/${question}/live/`, undefined, { origin: 'https://app.example' })
    assert.equal(stream.status, 200)
    assert.match(stream.headers['content-type']!, /^text\/event-stream/)
    assert.equal(stream.headers['cache-control'], 'no-cache, no-transform')
    assert.equal(stream.headers['access-control-allow-origin'], 'https://app.example')
    const first = await stream.next()
    assert.equal(first.event, 'figures')
    assert.deepEqual(first.data, await detailFigures(question))
    assert.equal(first.data.direct_vote_count, 0)
    assert.equal(stream.retry, 2000)

    await rate('ann', question, 4)
    const afterVote = await stream.until((event) => event.data.direct_vote_count === 1, 'the first vote')
    assert.deepEqual(afterVote.data, await detailFigures(question))
    assert.notEqual(afterVote.id, first.id)

    // Ben lets Ann answer for him: the liquid figures count her 4 twice, the direct ones once.
    await send('ben', 'POST', '/api/question_delegation/', { question, trustee: people.ann.id })
    const liquid = await stream.until((event) => event.data.liquid_vote_count === 2, 'the delegated weight')
    assert.equal(liquid.data.direct_vote_count, 1)
    assert.deepEqual(liquid.data, await detailFigures(question))

    // Ben answers himself: his own 2 replaces the weight he gave Ann.
    await rate('ben', question, 2)
    const own = await stream.until((event) => event.data.direct_vote_count === 2, 'Ben’s own answer')
    assert.deepEqual(own.data, await detailFigures(question))
    assert.equal(own.data.liquid_vote_count, 2)
  })

  test('a multiple-choice question streams each choice’s figures', async () => {
    const { id: question, choiceIds } = await mcqQuestion(t.database.db, people.author.id, 3, { publish: true })
    const stream = await open(`/api/questions/${question}/live/`)
    assert.equal((await stream.next()).data.choices.length, 3)
    await send('cat', 'POST', '/api/question_choice_votes/', { object_id: choiceIds[1], value: 5 })
    const event = await stream.until((e) => e.data.choices[1].direct_vote_count === 1, 'the choice vote')
    assert.deepEqual(event.data, await detailFigures(question))
  })

  test('a surge of votes is coalesced: a few events, the last with the final figures', async () => {
    const question = await published()
    const voters = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const row = await insertUser(t.database.db, { username: `live_surge_${question}_${i}` })
        return t.tokenFor(row.id)
      }),
    )
    const stream = await open(`/api/questions/${question}/live/`)
    await stream.next()
    await Promise.all(voters.map((token, i) => t.send('POST', '/api/question_votes/', { object_id: question, value: 1 + (i % 5) }, token)))
    const last = await stream.until((event) => event.data.direct_vote_count === 40, 'all 40 votes')
    assert.deepEqual(last.data, await detailFigures(question))
    // Each event carries whole figures; far fewer events than votes reach the subscriber.
    assert.ok(stream.events.length <= 20, `${stream.events.length} events for 40 votes`)
    const counts = stream.events.map((event) => event.data.direct_vote_count)
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => a - b),
    )
  })

  test('Last-Event-ID: a reconnection is sent figures only if they changed meanwhile', async () => {
    const question = await published()
    const first = await open(`/api/questions/${question}/live/`)
    const seen = await first.next()
    first.close()

    const resumed = await open(`/api/questions/${question}/live/`, undefined, { 'last-event-id': seen.id! })
    await rate('dan', question, 3)
    const next = await resumed.next()
    assert.equal(next.data.direct_vote_count, 1, 'the first event after resuming is the change, not a repeat')

    const stale = await open(`/api/questions/${question}/live/`, undefined, { 'last-event-id': seen.id! })
    assert.deepEqual((await stale.next()).data, await detailFigures(question))
    const unknown = await open(`/api/questions/${question}/live/`, undefined, { 'last-event-id': 'not-an-id' })
    assert.equal((await unknown.next()).id, next.id)
  })

  test('keep-alive comments flow while nothing changes', async () => {
    const stream = await open(`/api/questions/${await published()}/live/`)
    await stream.next()
    const deadline = Date.now() + 5_000
    while (stream.comments === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.ok(stream.comments > 0)
  })

  test('who may follow: drafts only their author and staff; unknown ids 404; a deleted question says gone and ends', async () => {
    const draft = (await insertQuestion(t.database.db, people.author.id, { subtype: 'likert', publish: false })).id
    const anonymous = await open(`/api/questions/${draft}/live/`)
    assert.equal(anonymous.status, 404)
    assert.deepEqual(JSON.parse(await anonymous.ended), { detail: 'Not found.' })
    assert.equal((await open(`/api/questions/${draft}/live/`, 'ann')).status, 404)
    assert.equal((await (await open(`/api/questions/${draft}/live/`, 'author')).next()).event, 'figures')
    assert.equal((await (await open(`/api/questions/${draft}/live/`, 'staff')).next()).event, 'figures')
    assert.equal((await open('/api/questions/99999999/live/')).status, 404)
    assert.equal((await open('/api/questions/abc/live/')).status, 404)

    const doomed = await published()
    const follower = await open(`/api/questions/${doomed}/live/`)
    await follower.next()
    await send('author', 'DELETE', `/api/questions/${doomed}/`)
    const gone = await follower.next()
    assert.deepEqual([gone.event, gone.data], ['gone', { id: doomed }])
    await follower.ended
  })

  test('HEAD tells what GET would without opening a stream', async () => {
    const response = await t.request({ method: 'HEAD', url: `/api/questions/${await published()}/live/` })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^text\/event-stream/)
  })
})

describe('a collection’s stream', () => {
  test('a snapshot of its published questions in order, then the changed ones; new questions bring a new snapshot; deletion ends it', async () => {
    const collection = await send('author', 'POST', '/api/question_collections/', { name: 'Live transport' })
    const [first, second] = [await published(), await published()]
    const draft = (await insertQuestion(t.database.db, people.author.id, { subtype: 'likert', publish: false })).id
    for (const question of [second, first, draft])
      await send('author', 'POST', '/api/question_collection_items/', { parent: collection.id, object_id: question, type: 'Q' })
    const stream = await open(`/api/question_collections/${collection.id}/live/`)
    const snapshot = await stream.next()
    assert.equal(snapshot.event, 'snapshot')
    assert.equal(snapshot.data.id, collection.id)
    assert.deepEqual(snapshot.data.questions, [await detailFigures(second), await detailFigures(first)])

    await rate('ann', first, 5)
    const delta = await stream.until((event) => event.event === 'figures', 'the changed question')
    assert.deepEqual(delta.data, { id: collection.id, questions: [await detailFigures(first)] })

    // A late subscriber resuming from the snapshot is sent the whole collection as it is now.
    const late = await open(`/api/question_collections/${collection.id}/live/`, undefined, { 'last-event-id': snapshot.id! })
    assert.deepEqual((await late.next()).data.questions, [await detailFigures(second), await detailFigures(first)])

    const third = await published()
    await send('author', 'POST', '/api/question_collection_items/', { parent: collection.id, object_id: third, type: 'Q' })
    const grown = await stream.until((event) => event.event === 'snapshot', 'the new snapshot')
    assert.deepEqual(
      grown.data.questions.map((question: { id: number }) => question.id),
      [second, first, third],
    )

    await send('author', 'DELETE', `/api/question_collections/${collection.id}/`)
    const gone = await stream.until((event) => event.event === 'gone', 'the end')
    assert.deepEqual(gone.data, { id: collection.id })
    await stream.ended
    assert.equal((await open(`/api/question_collections/${collection.id}/live/`)).status, 404)
  })
})

test('new opinion groups of a collection come on its stream as an opinion_groups event, the groups as published', async () => {
  const { collection, questions } = await campsCollection(t, 24)
  const stream = await open(`/api/question_collections/${collection}/live/`)
  await stream.until((event) => event.event === 'snapshot', 'the snapshot')
  const summary = (body: { groups: { label: number; size: number; share: number }[] }) =>
    body.groups.map(({ label, size, share }) => ({ label, size, share }))
  // The first request computes the groups.
  const first = await t.json(`/api/opinion_groups/?collection=${collection}`)
  const computed = await stream.until((event) => event.event === 'opinion_groups', 'the groups')
  assert.equal(computed.id, null, 'no event id: resuming follows the figures')
  assert.deepEqual(computed.data, { id: collection, computed_at: first.computed_at, participants: 24, groups: summary(first) })

  // Six more people of camp a: a process that checks on every request recomputes, and a group grows.
  const eager = await createTestApp('tiny', { OPINION_GROUPS_REFRESH_MS: '0' }, undefined, { database: t.database })
  try {
    for (let i = 0; i < 6; i++) {
      const user = await insertUser(t.database.db)
      const person = { id: user.id, token: await t.tokenFor(user.id), camp: 'a' as const }
      for (let q = 0; q < 9; q++) await answerAs(t, person, questions[q], rating('a', q, i))
    }
    let body = first
    for (let tries = 0; tries < 50 && body.participants !== 30; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      body = await eager.json(`/api/opinion_groups/?collection=${collection}`)
    }
    const grown = await stream.until((event) => event.event === 'opinion_groups' && event.data.participants === 30, 'the grown groups')
    assert.deepEqual(grown.data.groups, summary(body))
    assert.deepEqual(grown.data.groups.map((g: { size: number }) => g.size).sort(), [12, 18])
  } finally {
    await eager.close()
  }
})

test('a process admits LIVE_MAX_SUBSCRIBERS streams; the next is told to come back', async () => {
  const small = await createTestApp('tiny', { LIVE_MAX_SUBSCRIBERS: '1' }, undefined, { database: t.database })
  await small.app.listen({ port: 0, host: '127.0.0.1' })
  const smallBase = `http://127.0.0.1:${(small.app.server.address() as AddressInfo).port}`
  try {
    const question = await published()
    const first = await openSse(`${smallBase}/api/questions/${question}/live/`)
    await first.next()
    const refused = await openSse(`${smallBase}/api/questions/${question}/live/`)
    assert.equal(refused.status, 503)
    assert.equal(refused.headers['retry-after'], '5')
    assert.deepEqual(JSON.parse(await refused.ended), { detail: 'Too many live subscribers on this server; try again shortly.' })
    first.close()
    await first.ended
    const deadline = Date.now() + 5_000
    while (small.app.live.subscribers > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    const again = await openSse(`${smallBase}/api/questions/${question}/live/`)
    assert.equal(again.status, 200)
    again.close()
  } finally {
    await small.close()
  }
})
