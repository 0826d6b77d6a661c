import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import pg from 'pg'
import { createTestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'
import { foldFigureDeltas } from '../../src/db/answer-gate.ts'
import { serverUrl, serviceDatabaseEnv } from '../helpers/databases.ts'

/**
 * Figures of groups wider than a question, attacked around one private answer (docs/privacy.md): a collection's
 * figures (collection_stats), a tag's votes_count wherever a tag is shown, and the service's answer totals
 * (general_stats, advanced_stats). Anonymous, a stranger and staff read them through the public routes, and what
 * they read is compared byte for byte before and after; from the k-th private answer of the group (k =
 * MIN_CELL_SIZE, 5), the private answers count, all at once.
 */
const OBSERVERS = ['anonymous', 'stranger', 'staff'] as const
const NAMES = ['author', 'stranger', 'staff', 'p1', 'p2', 'p3', 'p4', 'p5', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'] as const
type Name = (typeof NAMES)[number]

/** A service of its own, with its people and what they do through HTTP. */
async function service(extra: Record<string, string> = {}) {
  const t = await createTestApp('empty', extra)
  const people = {} as Record<Name, { id: number; token: string }>
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, { is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const headers = (who: string): Record<string, string> =>
    who === 'anonymous' ? {} : { authorization: `Token ${people[who as Name].token}` }
  const call = async (method: 'POST' | 'PATCH' | 'DELETE', who: Name, url: string, body?: unknown) => {
    const response = await t.send(method, url, body, people[who].token)
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
    return response.statusCode === 204 ? null : response.json()
  }
  const ask = async (body: Record<string, unknown>) => (await call('POST', 'author', '/api/questions/', body)) as any
  const rate = (who: Name, question: number, value: number | null, isPrivate = false) =>
    call('POST', who, '/api/question_votes/', { object_id: question, value, private: isPrivate })
  const choose = (who: Name, choice: number, isPrivate = false) =>
    call('POST', who, '/api/question_choice_votes/', { object_id: choice, value: 5, private: isPrivate })
  /** What `who` reads at each URL, byte for byte (general_stats without the clock it reports). */
  const read = async (who: string, urls: string[]) => {
    const bodies: string[] = []
    for (const url of urls) {
      const response = await t.get(url, headers(who))
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`)
      bodies.push(url.startsWith('/api/general_stats/') ? JSON.stringify({ ...response.json(), generated_at: null }) : response.body)
    }
    return bodies
  }
  const readAll = (urls: string[]) => Promise.all(OBSERVERS.map((who) => read(who, urls)))
  const checkClean = async () => assert.deepEqual(await storedFigureDifferences(t.database.db), [], 'civic-survey check')
  return { t, people, headers, call, ask, rate, choose, read, readAll, checkClean }
}
type Service = Awaited<ReturnType<typeof service>>

const unchanged = (before: string[][], afterwards: string[][], moment: string) =>
  OBSERVERS.forEach((who, i) => assert.deepEqual(afterwards[i], before[i], `${who} sees a change ${moment}`))

describe('collection_stats', () => {
  let s: Service
  before(async () => (s = await service()))
  after(() => s.t.close())

  const stats = (collection: number) => [`/api/collection_stats/${collection}/`, `/api/collection_stats/?collection=${collection}`]
  const figures = (body: string) => {
    const shown = JSON.parse(body)
    return [shown.answerers, shown.answers, shown.complete_count, shown.completion]
  }
  async function collectionOf(name: string, questions: number[]): Promise<number> {
    const collection = (await s.call('POST', 'author', '/api/question_collections/', { name })).id
    for (const question of questions)
      await s.call('POST', 'author', '/api/question_collection_items/', { parent: collection, object_id: question })
    return collection
  }
  const withdraw = async (who: Name, question: number) => {
    const [vote] = (await s.t.json(`/api/question_votes/?user=${s.people[who].id}&question=${question}`, s.headers(who))).results
    await s.call('DELETE', who, `/api/question_votes/${vote.id}/`)
  }

  test('five public answerers, one of whom answers another question privately: nothing moves, nothing vanishes', async () => {
    const first = (await s.ask({ question: 'Should the library open on Sundays?' })).id
    const second = (await s.ask({ question: 'Should the library lend tools?' })).id
    const collection = await collectionOf('Library', [first, second])
    for (const who of ['p1', 'p2', 'p3', 'p4', 'p5'] as const) await s.rate(who, first, 4)
    const urls = stats(collection)
    const before = await s.readAll(urls)
    assert.deepEqual(figures(before[0][0]), [5, 5, undefined, 50])
    assert.deepEqual(JSON.parse(before[0][1]).results[0], JSON.parse(before[0][0]), 'the listing shows what the detail shows')

    await s.rate('p5', second, 2, true)
    unchanged(before, await s.readAll(urls), 'after a public answerer answered another question privately')
    // People with only private answers there, up to k-1 people with a private answer in all.
    for (const who of ['a1', 'a2', 'a3'] as const) {
      await s.rate(who, second, 1, true)
      unchanged(before, await s.readAll(urls), `after ${who} answered privately`)
    }

    // The fifth person with a private answer: their answers count, all of them at once (the question's first batch).
    await s.rate('a4', second, 5, true)
    const released = await s.readAll(urls)
    for (const [i, bodies] of released.entries()) {
      // Five public answerers, four with only private answers, ten answers; the one complete answerer is not shown.
      assert.deepEqual(figures(bodies[0]), [9, 10, undefined, 55.56], OBSERVERS[i])
      assert.deepEqual(JSON.parse(bodies[1]).results[0], JSON.parse(bodies[0]))
    }
    // Afterwards a private answer waits for its question's batch, as in the question's own figures.
    await s.rate('a5', second, 3, true)
    unchanged(released, await s.readAll(urls), 'after one more private answer')
    await s.rate('a5', first, 3, true)
    unchanged(released, await s.readAll(urls), 'after a private answer to the other question')
    await s.checkClean()
  })

  test('fewer than k people with a released private answer: the public figures are shown, not withheld', async () => {
    const first = (await s.ask({ question: 'Should the pool open earlier?' })).id
    const second = (await s.ask({ question: 'Should the pool be heated?' })).id
    const collection = await collectionOf('Pool', [first, second])
    for (const who of ['p1', 'p2', 'p3', 'p4', 'p5'] as const) await s.rate(who, first, 2)
    for (const who of ['a1', 'a2', 'a3', 'a4', 'a5'] as const) await s.rate(who, second, 4, true)
    assert.deepEqual(figures((await s.read('anonymous', stats(collection)))[0]), [10, 10, undefined, 50])
    // Four withdrawals and p5's private answer make the next batch: two people keep a private answer there, and p5
    // answered the other question publicly.
    for (const who of ['a1', 'a2', 'a3', 'a4'] as const) await withdraw(who, second)
    await s.rate('p5', second, 1, true)
    for (const bodies of await s.readAll(stats(collection))) {
      assert.deepEqual(figures(bodies[0]), [5, 5, undefined, 50], 'the figures of the public answers')
      assert.deepEqual(JSON.parse(bodies[1]).results[0], JSON.parse(bodies[0]))
    }
    await s.checkClean()
  })
})

describe("a tag's votes_count", () => {
  let s: Service
  before(async () => (s = await service()))
  after(() => s.t.close())

  /** The tag's votes_count in every place `urls` (below) shows it, as `who` reads it. */
  const counts = async (who: string, urls: string[]) => {
    const [listed, detail, question, questions, questionTags, collectionTags, collection] = (await s.read(who, urls)).map((body) =>
      JSON.parse(body),
    )
    return [
      listed.results[0].votes_count,
      detail.votes_count,
      question.tags[0].tag.votes_count,
      question.topic_info.votes_count,
      questions.results[0].tags[0].tag.votes_count,
      questions.results[0].topic_info.votes_count,
      questionTags.results[0].tag.votes_count,
      collectionTags.results[0].tag_info.votes_count,
      collection.tags[0].votes_count,
    ]
  }

  test('a tag counts private answers with their batches wherever it is shown: five at once, never one by one', async () => {
    const tag = (await insertTag(s.t.database.db, 'Harbours')).id
    const question = (await s.ask({ question: 'Should the harbour be dredged?', tags: [{ tag: { id: tag } }] })).id
    const collection = (await s.call('POST', 'author', '/api/question_collections/', { name: 'Harbour' })).id
    await s.call('POST', 'author', '/api/question_collection_tags/', { collection, tag })
    await s.rate('p1', question, 3)
    const urls = [
      `/api/tags/?id=${tag}`,
      `/api/tags/${tag}/`,
      `/api/questions/${question}/`,
      `/api/questions/?id=${question}`,
      `/api/question_tags/?question=${question}`,
      `/api/question_collection_tags/?collection=${collection}`,
      `/api/question_collections_full/${collection}/`,
    ]
    const before = await s.readAll(urls)
    for (const who of OBSERVERS) assert.deepEqual(await counts(who, urls), Array(9).fill(1), `${who}: the public answer`)

    for (const who of ['a1', 'a2', 'a3', 'a4'] as const) {
      await s.rate(who, question, who === 'a4' ? null : 2, true)
      unchanged(before, await s.readAll(urls), `after ${who}'s private answer`)
    }
    await s.rate('a5', question, 5, true)
    for (const who of OBSERVERS) assert.deepEqual(await counts(who, urls), Array(9).fill(6), `${who}: the five private answers at once`)
    await s.checkClean()

    // From then on a private answer waits for its question's next batch: the count never moves at its moment.
    const counting = await s.readAll(urls)
    for (const who of ['a6', 'a7', 'a8', 'p2'] as const) {
      await s.rate(who, question, 4, true)
      unchanged(counting, await s.readAll(urls), `after ${who}'s private answer to a question that counts them`)
    }
    await s.rate('p3', question, 1, true)
    for (const who of OBSERVERS) assert.deepEqual(await counts(who, urls), Array(9).fill(11), `${who}: the next batch at once`)
    await s.checkClean()
  })

  test(
    "a private answer goes through while another transaction holds its tag's row; the fifth still releases all five",
    { skip: serverUrl() ? false : 'PostgreSQL only: a second connection holds the row' },
    async () => {
      const db = s.t.database.db
      const tag = (await insertTag(db, 'Moorings')).id
      const question = (await s.ask({ question: 'Should the moorings be free?', tags: [{ tag: { id: tag } }] })).id
      await s.rate('p1', question, 3)
      const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(db)
      const env = serviceDatabaseEnv(rows[0].name)
      const holder = new pg.Client({ connectionString: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL })
      await holder.connect()
      const count = async () => (await s.t.json(`/api/tags/${tag}/`)).votes_count
      const pending = sql<{ n: number }>`SELECT count(*)::int AS n FROM tag_unreleased_deltas WHERE tag_id = ${tag}`
      try {
        // A tag shared by many questions: its row may be held by any writer (an edit, a fold); no private answer waits.
        await holder.query('BEGIN')
        await holder.query('SELECT id FROM tags WHERE id = $1 FOR NO KEY UPDATE', [tag])
        for (const who of ['a1', 'a2', 'a3', 'a4'] as const) {
          let timer: NodeJS.Timeout | undefined
          const answered = await Promise.race([
            s.rate(who, question, 2, true).then(() => 'answered'),
            new Promise((resolve) => (timer = setTimeout(resolve, 5000, 'waiting on the tag'))),
          ])
          clearTimeout(timer)
          assert.equal(answered, 'answered', `${who}'s private answer`)
          assert.equal(await count(), 1, `after ${who}'s private answer`)
        }
        await s.rate('a5', question, 4, true)
        assert.equal(await count(), 6, 'the five private answers at once, the row still held')
        // No fold takes the held row: the moves wait as deltas (once it is free, the process's folder may fold them).
        assert.ok((await pending.execute(db)).rows[0].n > 0, 'the moves wait as deltas')
      } finally {
        await holder.query('ROLLBACK').catch(() => {})
        await holder.end()
      }
      await foldFigureDeltas(db, true)
      assert.equal((await pending.execute(db)).rows[0].n, 0)
      assert.equal(await count(), 6, 'folding moves no count')
      await s.checkClean()
    },
  )

  test('ordering by votes_count sorts on the published count, which a private answer leaves as it is', async () => {
    const [few, many] = [(await insertTag(s.t.database.db, 'Jetty lights')).id, (await insertTag(s.t.database.db, 'Jetty planks')).id]
    const lit = (await s.ask({ question: 'Should the jetty be lit?', tags: [{ tag: { id: few } }] })).id
    const planked = (await s.ask({ question: 'Should the jetty be planked?', tags: [{ tag: { id: many } }] })).id
    await s.rate('p1', lit, 1)
    for (const who of ['a1', 'a2', 'a3'] as const) await s.rate(who, lit, 4, true)
    for (const who of ['p2', 'p3'] as const) await s.rate(who, planked, 2)
    const url = '/api/tags/?search=jetty&ordering=-votes_count'
    const before = await s.readAll([url])
    const order = JSON.parse(before[0][0]).results.map((row: { id: number; votes_count: number }) => [row.id, row.votes_count])
    assert.deepEqual(order, [
      [many, 2],
      [few, 1],
    ])
    await s.rate('a4', lit, 4, true)
    unchanged(before, await s.readAll([url]), 'after a fourth private answer')
  })

  test("moving a tag or a topic onto and off questions with private answers keeps each tag's count exact", async () => {
    const from = (await insertTag(s.t.database.db, 'Quays')).id
    const to = (await insertTag(s.t.database.db, 'Slipways')).id
    const question = (await s.ask({ question: 'Should the quay be widened?', tags: [{ tag: { id: from } }] })).id
    await s.rate('p1', question, 4)
    for (const who of ['a1', 'a2'] as const) await s.rate(who, question, 1, true)
    const count = async (tag: number) => (await s.t.json(`/api/tags/${tag}/`)).votes_count
    assert.deepEqual([await count(from), await count(to)], [1, 0])
    await s.call('PATCH', 'author', `/api/questions/${question}/`, { tags: [{ tag: { id: to } }, { tag: { id: from } }] })
    assert.deepEqual([await count(from), await count(to)], [1, 1], 'the new topic counts the public answer')
    await s.checkClean()
    await s.call('PATCH', 'author', `/api/questions/${question}/`, { tags: [{ tag: { id: to } }] })
    assert.deepEqual([await count(from), await count(to)], [0, 1])
    await s.checkClean()
    // Three more private answers bring the question's five private answers to its only tag.
    for (const who of ['a3', 'a4', 'a5'] as const) await s.rate(who, question, 3, true)
    assert.deepEqual([await count(from), await count(to)], [0, 6])
    await s.call('PATCH', 'author', `/api/questions/${question}/`, { tags: [{ tag: { id: from } }] })
    assert.deepEqual([await count(from), await count(to)], [6, 0], 'the five private answers move with the question')
    await s.checkClean()
  })
})

describe('kept answers embedding a tag', () => {
  test('the k-th private answer reaches a kept answer as soon as the published count moves, equal to one built afresh', async () => {
    const keeping = await service({ RESPONSE_CACHE_MB: '64' })
    const fresh = await createTestApp('empty', {}, undefined, { database: keeping.t.database })
    try {
      const tag = (await insertTag(keeping.t.database.db, 'Lighthouses')).id
      const question = (await keeping.ask({ question: 'Should the lighthouse be a museum?', tags: [{ tag: { id: tag } }] })).id
      await keeping.rate('p1', question, 3)
      for (const who of ['a1', 'a2', 'a3', 'a4'] as const) await keeping.rate(who, question, 2, true)
      const urls = [`/api/questions/${question}/`, `/api/questions/?id=${question}`, `/api/tags/?id=${tag}`, `/api/tags/${tag}/`]
      const kept = async () => Promise.all(urls.map(async (url) => (await keeping.t.get(url)).body))
      const built = async () => Promise.all(urls.map(async (url) => (await fresh.get(url)).body))
      // Kept once the notices of the writes above have arrived: read from memory, with no statement.
      let statements = -1
      for (let i = 0; i < 50 && statements !== 0; i++) {
        await kept()
        statements = Number((await keeping.t.get(urls[0])).headers['x-query-count'])
      }
      assert.equal(statements, 0, 'the question is kept')
      assert.deepEqual(await kept(), await built(), 'kept before')
      assert.equal(JSON.parse((await kept())[3]).votes_count, 1)
      await keeping.rate('a5', question, 2, true)
      const afterwards = await kept()
      assert.deepEqual(afterwards, await built(), 'kept after the k-th private answer')
      assert.equal(JSON.parse(afterwards[3]).votes_count, 6)
    } finally {
      await fresh.close()
      await keeping.t.close()
    }
  })
})

describe('general_stats and advanced_stats', () => {
  let s: Service
  before(async () => (s = await service()))
  after(() => s.t.close())

  const today = new Date().toISOString().slice(0, 10)
  const urls = [
    '/api/general_stats/',
    '/api/advanced_stats/',
    `/api/advanced_stats/?start=${today}&end=${today}&interval=week`,
    `/api/advanced_stats/?start=${today}&end=${today}&interval=month`,
  ]

  test("answers and answerers count private answers from the k-th of each count's group, all at once", async () => {
    const likert = (await s.ask({ question: 'Should the ferry run at night?' })).id
    const choices = (await s.ask({ question: 'Which ferry first?', choices: [{ text: 'North' }, { text: 'South' }] })).choices
    await s.rate('p1', likert, 4)
    const before = await s.readAll(urls)
    const general = JSON.parse(before[0][0])
    assert.deepEqual([general.answer_count, general.question_vote_count, general.choice_vote_count, general.skip_count], [1, 1, 0, 0])

    // Four private answers: two likert, a skip, a pick.
    await s.rate('a1', likert, 2, true)
    unchanged(before, await s.readAll(urls), 'after a private answer')
    await s.rate('a2', likert, null, true)
    unchanged(before, await s.readAll(urls), 'after a private skip')
    await s.choose('a3', choices[0].id, true)
    unchanged(before, await s.readAll(urls), 'after a private pick')
    await s.rate('a4', likert, 5, true)
    unchanged(before, await s.readAll(urls), 'after a fourth private answer')

    // Five private answers on the service, but no question holds five: batches are per question, so nothing moves.
    await s.rate('a5', likert, 1, true)
    unchanged(before, await s.readAll(urls), "after the service's fifth private answer")

    // The likert question's fifth private answer releases its batch (four likert answers and a skip); the pick waits.
    await s.rate('a6', likert, 3, true)
    const released = await s.readAll(urls)
    for (const [i, bodies] of released.entries()) {
      const [totals, days, weeks, months] = bodies.map((body) => JSON.parse(body))
      assert.deepEqual(
        [totals.answer_count, totals.question_vote_count, totals.choice_vote_count],
        [6, 6, 0],
        `${OBSERVERS[i]}: general_stats`,
      )
      for (const [name, series] of [
        ['day', days],
        ['week', weeks],
        ['month', months],
      ] as const) {
        assert.equal(series.results.data.answer_count.at(-1), 6, `${OBSERVERS[i]}: answers this ${name}`)
        assert.equal(series.results.data.answerer_count.at(-1), 6, `${OBSERVERS[i]}: answerers this ${name}`)
      }
    }

    // Once the totals count private answers, a private answer, or its withdrawal, waits for its question's batch.
    await s.rate('a7', likert, 2, true)
    unchanged(released, await s.readAll(urls), 'after a private answer to a question that counts its private answers')
    const [vote] = (await s.t.json(`/api/question_votes/?user=${s.people.a1.id}&question=${likert}`, s.headers('a1'))).results
    await s.call('DELETE', 'a1', `/api/question_votes/${vote.id}/`)
    unchanged(released, await s.readAll(urls), 'after a private answer is withdrawn')
    await s.checkClean()
  })
})
