import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { assertCountersExact, collectionWorld, type Person } from './support.ts'

let t: TestApp
let world: ReturnType<typeof collectionWorld>
let owner: Person, stranger: Person, staff: Person
let source: any
const questions: number[] = []

const auth = (who: Person) => ({ authorization: `Token ${who.token}` })
const itemsOf = async (id: number, who?: Person) =>
  (await t.json(`/api/question_collection_items/?parent=${id}&ordering=order&page_size=100`, who ? auth(who) : {})).results

before(async () => {
  t = await createTestApp('tiny')
  world = collectionWorld(t)
  owner = await world.person()
  stranger = await world.person()
  staff = await world.person({ is_staff: true })
  source = await world.collection(owner, { name: 'Local transport', photo: 'https://images.example.org/bus.png' })
  for (let i = 0; i < 6; i++) questions.push(await world.question(owner.id))
  for (const q of questions.slice(0, 3)) await world.add(owner, { parent: source.id, object_id: q, type: 'Q' })
  await world.add(owner, { parent: source.id, type: 'B', content_object: { title: 'Break', text: 'Have a rest' }, order: 1 })
  const tags = await t.database.db.selectFrom('tags').select('id').orderBy('id').limit(2).execute()
  for (const tag of tags)
    await t.database.db.insertInto('question_collection_tags').values({ collection_id: source.id, tag_id: tag.id }).execute()
})
after(() => t.close())

describe('copy', () => {
  test("copies another user's collection to the caller with its items in order and its tags", async () => {
    const response = await t.send('POST', `/api/question_collections/${source.id}/copy/`, undefined, stranger.token)
    assert.equal(response.statusCode, 201, response.body)
    const copy = response.json()
    assert.notEqual(copy.id, source.id)
    assert.equal(copy.user.id, stranger.id)
    assert.equal(copy.name, 'Local transport')
    assert.equal(copy.photo, 'https://images.example.org/bus.png')
    assert.deepEqual([copy.question_count, copy.item_count], [3, 4])
    const [original, copied] = [await itemsOf(source.id), await itemsOf(copy.id)]
    const shape = (items: any[]) => items.map((item) => [item.type, item.object_id, item.type === 'B' ? item.content_object : null])
    assert.deepEqual(shape(copied), shape(original))
    assert.deepEqual(
      copied.map((item: any) => item.order),
      [0, 1, 2, 3],
    )
    const full = await t.json(`/api/question_collections_full/${copy.id}/`)
    assert.equal(full.copied_from, source.id)
    assert.equal(full.tags.length, 2)
    assert.deepEqual(full.tags, (await t.json(`/api/question_collections_full/${source.id}/`)).tags)
    await assertCountersExact(t)
  })

  test("a copy leaves out others' drafts; unknown collections are 404; anonymous callers must sign in", async () => {
    const draft = await world.question(owner.id, { publish: false })
    const withDraft = await world.collection(owner)
    await world.add(owner, { parent: withDraft.id, object_id: draft, type: 'Q' })
    await world.add(owner, { parent: withDraft.id, object_id: questions[0], type: 'Q' })
    const copy = (await t.send('POST', `/api/question_collections/${withDraft.id}/copy/`, {}, stranger.token)).json()
    assert.deepEqual([copy.question_count, copy.item_count], [1, 1])
    assert.equal((await t.send('POST', '/api/question_collections/999999/copy/', {}, stranger.token)).statusCode, 404)
    assert.equal((await t.send('POST', `/api/question_collections/${source.id}/copy/`, {})).statusCode, 403)
  })
})

describe('update_order', () => {
  test('the owner sets every order at once; the answer is the items in their new order', async () => {
    const items = await itemsOf(source.id)
    const reversed = [...items].reverse().map((item: any, index: number) => ({ id: item.id, order: index }))
    const response = await t.send('POST', `/api/question_collections/${source.id}/update_order/`, { items: reversed }, owner.token)
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(
      response.json().results.map((item: any) => item.id),
      reversed.map((entry) => entry.id),
    )
    assert.deepEqual(
      response.json().results.map((item: any) => item.order),
      [0, 1, 2, 3],
    )
    assert.deepEqual(
      (await itemsOf(source.id)).map((item: any) => item.id),
      reversed.map((entry) => entry.id),
    )
    const byStaff = await t.send(
      'POST',
      `/api/question_collections/${source.id}/update_order/`,
      { items: items.map((item: any, order: number) => ({ id: item.id, order })) },
      staff.token,
    )
    assert.equal(byStaff.statusCode, 200, byStaff.body)
  })

  test('all or nothing: a foreign, unknown or repeated item, or one left out, is a 400 on items and changes nothing', async () => {
    const items = await itemsOf(source.id)
    const before = items.map((item: any) => [item.id, item.order])
    const other = await world.collection(stranger)
    const foreign = await world.add(stranger, { parent: other.id, object_id: questions[4], type: 'Q' })
    const all = items.map((item: any, index: number) => ({ id: item.id, order: 10 - index }))
    const cases: [string, unknown][] = [
      ['an item of another collection', { items: [...all.slice(0, -1), { id: foreign.id, order: 0 }] }],
      ['an unknown id', { items: [...all, { id: 999999, order: 0 }] }],
      ['a repeated id', { items: [...all, { ...all[0], order: 99 }] }],
      ['an item left out', { items: all.slice(1) }],
      ['no items field', {}],
      ['items that are not a list', { items: 'all' }],
      ['an entry without an order', { items: [{ id: all[0].id }, ...all.slice(1)] }],
      ['an entry that is not an object', { items: [5, ...all.slice(1)] }],
      ['an order too large', { items: [{ id: all[0].id, order: 1e12 }, ...all.slice(1)] }],
      ['a huge list', { items: Array.from({ length: 6000 }, (_, i) => ({ id: i + 1, order: i })) }],
    ]
    for (const [what, body] of cases) {
      const response = await t.send('POST', `/api/question_collections/${source.id}/update_order/`, body, owner.token)
      assert.equal(response.statusCode, 400, `${what}: ${response.body}`)
      assert.deepEqual(Object.keys(response.json()), ['items'], what)
    }
    assert.deepEqual(
      (await itemsOf(source.id)).map((item: any) => [item.id, item.order]),
      before,
    )
    assert.deepEqual(
      (await itemsOf(other.id)).map((item: any) => item.order),
      [0],
    )
  })

  test('a stranger cannot reorder; an unknown collection is 404', async () => {
    const items = await itemsOf(source.id)
    const body = { items: items.map((item: any, order: number) => ({ id: item.id, order })) }
    assert.equal((await t.send('POST', `/api/question_collections/${source.id}/update_order/`, body, stranger.token)).statusCode, 403)
    assert.equal((await t.send('POST', `/api/question_collections/${source.id}/update_order/`, body)).statusCode, 403)
    assert.equal((await t.send('POST', '/api/question_collections/999999/update_order/', body, owner.token)).statusCode, 404)
  })

  test('concurrent reorders leave one of them whole, never a mix', async () => {
    const big = await world.collection(owner)
    for (let i = 0; i < 40; i++) {
      if (i % 8 === 0) await world.add(owner, { parent: big.id, type: 'B', content_object: { title: `Part ${i / 8}`, text: '' } })
      else await world.add(owner, { parent: big.id, object_id: await world.question(owner.id), type: 'Q' })
    }
    const ids: number[] = (await itemsOf(big.id)).map((item: any) => item.id)
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let round = 0; round < 6; round++) {
      const orders = Array.from({ length: 4 }, () => {
        const shuffled = [...ids].sort(() => random() - 0.5)
        return shuffled.map((id, order) => ({ id, order }))
      })
      const responses = await Promise.all(
        orders.map((items) => t.send('POST', `/api/question_collections/${big.id}/update_order/`, { items }, owner.token)),
      )
      for (const response of responses) assert.equal(response.statusCode, 200, response.body)
      const stored = await t.database.db
        .selectFrom('question_collection_items')
        .select(['id', 'order'])
        .where('parent_id', '=', big.id)
        .orderBy('id')
        .execute()
      const now = new Map(stored.map((row) => [row.id, row.order]))
      const whole = orders.filter((items) => items.every((entry) => now.get(entry.id) === entry.order))
      assert.equal(whole.length, 1, `round ${round}: the stored order is one of the requests, whole`)
    }
    await assertCountersExact(t)
  })
})

describe('writes that meet', () => {
  test('adding questions while they are deleted and while items are added: no 500, counters exact', async () => {
    const c = await world.collection(owner)
    for (let round = 0; round < 8; round++) {
      const doomed = await world.question(owner.id)
      const kept = await world.question(owner.id)
      const responses = await Promise.all([
        t.send('POST', '/api/question_collection_items/', { parent: c.id, object_id: doomed, type: 'Q' }, owner.token),
        t.send('DELETE', `/api/questions/${doomed}/`, undefined, owner.token),
        t.send('POST', '/api/question_collection_items/', { parent: c.id, object_id: kept, type: 'Q' }, owner.token),
        t.send('POST', '/api/question_collection_items/', { parent: c.id, object_id: kept, type: 'Q' }, owner.token),
      ])
      for (const response of responses) assert.ok(response.statusCode < 500, `${response.statusCode} ${response.body}`)
      assert.deepEqual(
        responses
          .slice(2)
          .map((r) => r.statusCode)
          .sort(),
        [201, 400],
        'the same question once',
      )
    }
    await assertCountersExact(t)
  })
})
