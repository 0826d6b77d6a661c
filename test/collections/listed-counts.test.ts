import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { assertCountersExact, collectionWorld, type Person } from './support.ts'

/**
 * Every count, progress figure and completeness flag of a collection counts exactly the items the caller can
 * list (docs/collections.md, "What a count counts"): others' drafts are neither listed nor counted, the author
 * and staff see theirs counted as they see them listed. As the author, another person, the author of a question
 * unpublished in someone else's collection, staff and anonymous callers, through HTTP.
 */
let t: TestApp
let world: ReturnType<typeof collectionWorld>
let owner: Person, other: Person, third: Person, staff: Person
/** Drafts at the start, in the middle and at the end, published questions and a break between them. */
let edges: { id: number; drafts: number[]; published: number[] }
/** Only a draft. */
let onlyDraft: { id: number; draft: number }
/** Twelve questions, one of them `third`'s, unpublished by them after it was added. */
let twelve: { id: number; theirs: number }
/** A draft added to `edges` later, never answered. */
let addedDraft: number

type Who = Person | null
const auth = (who: Who): Record<string, string> => (who ? { authorization: `Token ${who.token}` } : {})
const name = (who: Who) =>
  who === null ? 'anonymous' : who === owner ? 'owner' : who === staff ? 'staff' : who === third ? 'third' : 'other'
const queries = (response: LightMyRequestResponse) => Number(response.headers['x-query-count'])

async function read(url: string, who: Who): Promise<any> {
  const response = await t.get(url, auth(who))
  assert.equal(response.statusCode, 200, `${url} as ${name(who)}: ${response.body}`)
  return response.json()
}

/** The items as the web app reads them (ReactLite's getCollectionItemsAllPages: pages of the default 10 until a short one). */
async function listedItems(collectionId: number, who: Who): Promise<any[]> {
  const items: any[] = []
  for (let page = 1; ; page++) {
    const body = await read(`/api/question_collection_items/?parent=${collectionId}&ordering=order&page=${page}`, who)
    items.push(...body.results)
    if (body.results.length < 10 || page === Math.ceil(body.count / 10)) return items
  }
}

/** What the caller lists: [questions, items]. */
async function listed(collectionId: number, who: Who): Promise<[number, number]> {
  const items = await listedItems(collectionId, who)
  return [items.filter((item) => item.type === 'Q').length, items.length]
}

/** Every place a collection's counts show, as `who` reads them, each equal to what `who` lists. */
async function assertCountsAsListed(collectionId: number, who: Who): Promise<[number, number]> {
  const expected = await listed(collectionId, who)
  const as = `${name(who)}, collection ${collectionId}`
  const pair = (c: any) => [c.question_count, c.item_count]
  assert.deepEqual(pair(await read(`/api/question_collections/${collectionId}/`, who)), expected, `detail, ${as}`)
  assert.deepEqual(pair(await read(`/api/question_collections_full/${collectionId}/`, who)), expected, `full detail, ${as}`)
  assert.deepEqual(pair((await read(`/api/question_collections/?id=${collectionId}`, who)).results[0]), expected, `listing, ${as}`)
  const fullListing = await read(`/api/question_collections_full/?id__in=${collectionId}`, who)
  assert.deepEqual(pair(fullListing.results[0]), expected, `full listing, ${as}`)
  assert.deepEqual(pair(await read(`/api/collection_stats/${collectionId}/`, who)), expected, `collection_stats detail, ${as}`)
  assert.deepEqual(
    pair((await read(`/api/collection_stats/?collection=${collectionId}`, who)).results[0]),
    expected,
    `collection_stats, ${as}`,
  )
  const itemsFull = await read(`/api/question_collection_items_full/?parent=${collectionId}`, who)
  for (const item of itemsFull.results) assert.deepEqual(pair(item.parent_info), expected, `items' parent_info, ${as}`)
  const questions = await read(`/api/questions/?in_collections__parent=${collectionId}`, who)
  assert.equal(questions.count, expected[0], `questions_link, ${as}`)
  return expected
}

const everyone = (): Who[] => [null, owner, other, third, staff]

async function assertEveryoneCountsAsListed(): Promise<void> {
  for (const collection of [edges.id, onlyDraft.id, twelve.id]) {
    for (const who of everyone()) await assertCountsAsListed(collection, who)
  }
}

async function answer(who: Person, question: number, collection: number): Promise<void> {
  const response = await t.send('POST', '/api/question_votes/', { object_id: question, value: 4, collection }, who.token)
  assert.equal(response.statusCode, 201, response.body)
}

async function publish(who: Person, question: number, value: boolean): Promise<void> {
  const response = await t.send('PATCH', `/api/questions/${question}/`, { publish: value }, who.token)
  assert.equal(response.statusCode, 200, response.body)
}

before(async () => {
  // k = 1, so collection_stats shows every figure of one answerer.
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1' })
  world = collectionWorld(t)
  owner = await world.person()
  other = await world.person()
  third = await world.person()
  staff = await world.person({ is_staff: true })

  const draft = () => world.question(owner.id, { publish: false })
  const published = () => world.question(owner.id)
  const d = [await draft(), await draft(), await draft()]
  const p = [await published(), await published(), await published()]
  const collection = await world.collection(owner)
  for (const question of [d[0], p[0]]) await world.add(owner, { parent: collection.id, object_id: question, type: 'Q' })
  await world.add(owner, { parent: collection.id, type: 'B', content_object: { title: 'Half way', text: '' } })
  for (const question of [p[1], d[1], p[2], d[2]]) await world.add(owner, { parent: collection.id, object_id: question, type: 'Q' })
  edges = { id: collection.id, drafts: d, published: p }

  const lonely = await world.collection(owner)
  const alone = await draft()
  await world.add(owner, { parent: lonely.id, object_id: alone, type: 'Q' })
  onlyDraft = { id: lonely.id, draft: alone }

  const dozen = await world.collection(owner)
  const theirs = await world.question(third.id)
  for (let i = 0; i < 12; i++) {
    await world.add(owner, { parent: dozen.id, object_id: i === 5 ? theirs : await published(), type: 'Q' })
  }
  await publish(third, theirs, false)
  twelve = { id: dozen.id, theirs }
})
after(() => t.close())

describe('each count equals the length of the item list the caller gets', () => {
  test('drafts at the start, middle and end; only a draft; another person’s draft among twelve', async () => {
    await assertEveryoneCountsAsListed()
    // What the lists hold, so the counts above are not equal by accident.
    assert.deepEqual(await listed(edges.id, null), [3, 4])
    assert.deepEqual(await listed(edges.id, other), [3, 4])
    assert.deepEqual(await listed(edges.id, owner), [6, 7])
    assert.deepEqual(await listed(edges.id, staff), [6, 7])
    assert.deepEqual(await listed(onlyDraft.id, null), [0, 0])
    assert.deepEqual(await listed(onlyDraft.id, other), [0, 0])
    assert.deepEqual(await listed(onlyDraft.id, owner), [1, 1])
    assert.deepEqual(await listed(twelve.id, null), [11, 11])
    assert.deepEqual(await listed(twelve.id, owner), [11, 11], 'the owner of the collection does not list another author’s draft')
    assert.deepEqual(await listed(twelve.id, third), [12, 12], 'its author does')
    assert.deepEqual(await listed(twelve.id, staff), [12, 12])
    await assertCountersExact(t)
  })

  test('orderings by a count sort on the counts the caller is shown', async () => {
    for (const who of everyone()) {
      for (const field of ['question_count', 'item_count']) {
        for (const base of ['question_collections', 'collection_stats']) {
          const filter = base === 'collection_stats' ? '' : `user=${owner.id}&`
          const page = await read(`/api/${base}/?${filter}ordering=-${field},id&page_size=100`, who)
          const mine = page.results.filter((c: any) => [edges.id, onlyDraft.id, twelve.id].includes(c.id ?? c.collection))
          const shown = mine.map((c: any) => c[field])
          assert.deepEqual(
            shown,
            [...shown].sort((a, b) => b - a),
            `${base} by -${field} as ${name(who)}`,
          )
        }
      }
    }
    // Anonymous: twelve (11), edges (3), the draft alone (0); the stored totals would put it 12, 6, 1.
    const anonymous = await read(`/api/question_collections/?user=${owner.id}&ordering=question_count`, null)
    assert.deepEqual(
      anonymous.results.map((c: any) => [c.id, c.question_count]),
      [
        [onlyDraft.id, 0],
        [edges.id, 3],
        [twelve.id, 11],
      ],
    )
  })

  test('a shared collection counts what its page lists', async () => {
    const link = await t.send('POST', '/api/create_shareable_link/', { collection: edges.id }, owner.token)
    assert.equal(link.statusCode, 201, link.body)
    const shared = await read(`/shared/${link.json().token}/`, owner)
    assert.equal(shared.collection.question_count, shared.questions.length)
    assert.equal(shared.collection.question_count, 3)
    assert.equal(shared.collection.item_count, 4)
  })
})

describe('progress and completeness reach their end on the listed items', () => {
  test('another person answers the three listed questions: answered 100, complete in collection_stats', async () => {
    const items = await listedItems(edges.id, other)
    for (const item of items) if (item.type === 'Q') await answer(other, item.object_id, edges.id)
    assert.equal((await read(`/api/question_collections/${edges.id}/`, other)).answered, 100)
    assert.equal((await read(`/api/question_collections/?id=${edges.id}`, other)).results[0].answered, 100)
    for (const who of [null, other]) {
      const stats = await read(`/api/collection_stats/${edges.id}/`, who)
      assert.deepEqual([stats.answerers, stats.complete_count, stats.completion], [1, 1, 100], name(who))
      const users = await read(`/api/question_collection_users/?parent=${edges.id}`, who)
      assert.deepEqual(
        users.results.map((row: any) => [row.id, row.answered_count, row.answered]),
        [[other.id, 3, 100]],
      )
    }
  })

  test('the author lists their drafts, so their progress and completeness count them', async () => {
    for (const question of edges.published) await answer(owner, question, edges.id)
    assert.equal((await read(`/api/question_collections/${edges.id}/`, owner)).answered, 50)
    let stats = await read(`/api/collection_stats/${edges.id}/`, owner)
    // Nobody complete: a group of nobody is not shown.
    assert.deepEqual([stats.question_count, stats.answerers, stats.complete_count], [6, 2, undefined])
    for (const question of edges.drafts) await answer(owner, question, edges.id)
    assert.equal((await read(`/api/question_collections/${edges.id}/`, owner)).answered, 100)
    stats = await read(`/api/collection_stats/${edges.id}/`, owner)
    assert.deepEqual([stats.answerers, stats.complete_count, stats.completion], [2, 1, 75])
    const users = await read(`/api/question_collection_users/?parent=${edges.id}&user=${owner.id}`, owner)
    assert.deepEqual([users.results[0].answered_count, users.results[0].answered], [6, 100])
    // To anyone else the owner answered the three published questions, all of those listed: both complete.
    stats = await read(`/api/collection_stats/${edges.id}/`, other)
    assert.deepEqual([stats.question_count, stats.answerers, stats.complete_count, stats.completion], [3, 2, 2, 100])
    const seen = await read(`/api/question_collection_users/?parent=${edges.id}&user=${owner.id}`, null)
    assert.deepEqual([seen.results[0].answered_count, seen.results[0].answered], [3, 100])
  })

  test('staff list every question: answering the twelve makes them complete', async () => {
    for (const item of await listedItems(twelve.id, staff)) await answer(staff, item.object_id, twelve.id)
    assert.equal((await read(`/api/question_collections/${twelve.id}/`, staff)).answered, 100)
    const stats = await read(`/api/collection_stats/${twelve.id}/`, staff)
    assert.deepEqual([stats.question_count, stats.complete_count, stats.completion], [12, 1, 100])
    // Others see the eleven published questions, all answered by staff.
    const seen = await read(`/api/collection_stats/${twelve.id}/`, other)
    assert.deepEqual([seen.question_count, seen.answers, seen.complete_count, seen.completion], [11, 11, 1, 100])
  })

  test('a collection whose only question is a draft: nothing to answer, 0 % for anyone but its author', async () => {
    for (const who of [null, other]) {
      const collection = await read(`/api/question_collections/${onlyDraft.id}/`, who)
      assert.deepEqual([collection.question_count, collection.item_count, collection.answered], [0, 0, 0], name(who))
    }
  })
})

describe('publishing, unpublishing and deleting a question move every count', () => {
  test('publishing the draft in the middle adds it for everyone who could not list it', async () => {
    const before = new Map<Who, [number, number]>()
    for (const who of everyone()) before.set(who, await listed(edges.id, who))
    await publish(owner, edges.drafts[1], true)
    for (const who of everyone()) {
      const [questions, items] = before.get(who)!
      const grows = who === null || who === other || who === third ? 1 : 0
      assert.deepEqual(await assertCountsAsListed(edges.id, who), [questions + grows, items + grows], name(who))
    }
    // The other person answered every question listed before: one more to go.
    assert.equal((await read(`/api/question_collections/${edges.id}/`, other)).answered, 75)
    await assertCountersExact(t)
  })

  test('publishing tells the collection’s answerers; adding a draft does not', async () => {
    const inbox = async () => (await read('/api/notifications/?kind=collection_gained_questions', other)).results
    const [grew] = await inbox()
    assert.ok(grew, 'the published question reached the other person')
    assert.match(grew.message, /published a question in/)
    assert.deepEqual(grew.data, { collection: edges.id, questions: [edges.drafts[1]] })
    // Told today already: dismissed, so that a draft added now would show if it were told.
    assert.equal((await t.send('DELETE', `/api/notifications/${grew.id}/`, undefined, other.token)).statusCode, 204)
    addedDraft = await world.question(owner.id, { publish: false })
    await world.add(owner, { parent: edges.id, object_id: addedDraft, type: 'Q' })
    assert.deepEqual(await inbox(), [])
  })

  test('unpublishing a listed question takes it off for everyone but its author and staff', async () => {
    await publish(third, twelve.theirs, true)
    for (const who of everyone()) assert.deepEqual(await assertCountsAsListed(twelve.id, who), [12, 12], name(who))
    await publish(owner, edges.published[0], false)
    assert.deepEqual(await assertCountsAsListed(edges.id, other), [3, 4])
    assert.deepEqual(await assertCountsAsListed(edges.id, null), [3, 4])
    assert.deepEqual(await assertCountsAsListed(edges.id, owner), [7, 8])
    await assertEveryoneCountsAsListed()
    await assertCountersExact(t)
  })

  test('deleting a draft takes it off for its author and staff only', async () => {
    const remove = async (question: number) => {
      const response = await t.send('DELETE', `/api/questions/${question}/`, undefined, owner.token)
      assert.equal(response.statusCode, 204, response.body)
    }
    await remove(onlyDraft.draft)
    for (const who of everyone()) assert.deepEqual(await assertCountsAsListed(onlyDraft.id, who), [0, 0], name(who))
    const before = new Map<Who, [number, number]>()
    for (const who of everyone()) before.set(who, await listed(edges.id, who))
    await remove(addedDraft)
    for (const who of everyone()) {
      const [questions, items] = before.get(who)!
      const shrinks = who === owner || who === staff ? 1 : 0
      assert.deepEqual(await assertCountsAsListed(edges.id, who), [questions - shrinks, items - shrinks], name(who))
    }
    await assertEveryoneCountsAsListed()
    await assertCountersExact(t)
  })
})

describe('statements and bad input', () => {
  test('a page of collections, or of their figures, takes the statements of a page of one', async () => {
    for (let i = 0; i < 6; i++) {
      const collection = await world.collection(owner)
      await world.add(owner, { parent: collection.id, object_id: await world.question(owner.id, { publish: false }), type: 'Q' })
      await world.add(owner, { parent: collection.id, object_id: await world.question(owner.id), type: 'Q' })
    }
    for (const who of everyone()) {
      for (const base of ['question_collections', 'question_collections_full', 'collection_stats']) {
        for (const ordering of ['', '&ordering=-question_count']) {
          const filter = base === 'collection_stats' ? '' : `user=${owner.id}&`
          const one = await t.get(`/api/${base}/?${filter}page_size=1${ordering}`, auth(who))
          const many = await t.get(`/api/${base}/?${filter}page_size=9${ordering}`, auth(who))
          assert.equal(many.json().results.length, 9)
          assert.ok(queries(one) > 0)
          assert.equal(queries(many), queries(one), `${base}${ordering} as ${name(who)}`)
        }
      }
    }
  })

  test('bad input answers a DRF-shaped 4xx, never 500', async () => {
    const urls = [
      '/api/question_collections/?ordering=question_count,nonsense,-item_count&page=99',
      '/api/question_collections/?id__in=1,x,,3',
      '/api/question_collections/?id=abc',
      '/api/question_collections/99999999999/',
      '/api/question_collections/0/',
      '/api/collection_stats/abc/',
      '/api/collection_stats/?collection=-1',
      '/api/collection_stats/?ordering=-item_count&page=0',
      '/api/question_collection_users/?parent=abc',
      '/api/question_collection_users/?parent=99999',
      '/api/question_collection_items_full/?parent=2147483648',
    ]
    for (const who of everyone()) {
      for (const url of urls) {
        const response = await t.get(url, auth(who))
        assert.ok(response.statusCode < 500, `${url} as ${name(who)}: ${response.statusCode} ${response.body}`)
        if (response.statusCode >= 400) {
          const body = response.json()
          assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `${url}: ${response.body}`)
          for (const value of Object.values(body)) assert.ok(typeof value === 'string' || Array.isArray(value), `${url}: ${response.body}`)
        }
      }
    }
  })
})

describe('answers kept in memory', () => {
  test('a kept anonymous answer is never what a person who lists more is given; publishing rebuilds it', async () => {
    const kept = await createTestApp('tiny', { RESPONSE_CACHE_MB: '64', MIN_CELL_SIZE: '1' }, undefined, { database: t.database })
    try {
      const url = `/api/question_collections/${edges.id}/`
      const count = async (who: Who) => {
        const response = await kept.get(url, auth(who))
        assert.equal(response.statusCode, 200, response.body)
        return response
      }
      // A write, whose notice tells the new app that notices arrive (it keeps nothing before the first).
      const edited = await kept.send('PATCH', url, { desc: 'Kept in memory' }, owner.token)
      assert.equal(edited.statusCode, 200, edited.body)
      // Read anonymously until the answer comes from memory (notices of earlier writes may still arrive).
      let anonymous = await count(null)
      for (let i = 0; i < 50 && anonymous.headers['x-cache'] !== 'HIT'; i++) anonymous = await count(null)
      assert.equal(anonymous.headers['x-cache'], 'HIT')
      const shownToAnyone = anonymous.json().question_count
      const [ownerListed] = await listed(edges.id, owner)
      assert.ok(ownerListed > shownToAnyone)
      for (const who of [owner, staff]) {
        const response = await count(who)
        assert.notEqual(response.headers['x-cache'], 'HIT')
        assert.equal(response.json().question_count, ownerListed, name(who))
      }
      assert.equal((await count(other)).json().question_count, shownToAnyone)
      const draft = edges.drafts[0]
      const published = await kept.send('PATCH', `/api/questions/${draft}/`, { publish: true }, owner.token)
      assert.equal(published.statusCode, 200, published.body)
      const after = await count(null)
      assert.notEqual(after.headers['x-cache'], 'HIT')
      assert.equal(after.json().question_count, shownToAnyone + 1)
      const unpublished = await kept.send('PATCH', `/api/questions/${draft}/`, { publish: false }, owner.token)
      assert.equal(unpublished.statusCode, 200, unpublished.body)
      assert.equal((await count(null)).json().question_count, shownToAnyone)
    } finally {
      await kept.close()
    }
  })
})
