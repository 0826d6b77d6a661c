import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertCountersExact, collectionWorld, type Person } from './support.ts'

let t: TestApp
let world: ReturnType<typeof collectionWorld>
let owner: Person, stranger: Person, staff: Person
let collection: any
const questions: number[] = []

const ITEM_FIELDS = ['content_object', 'created_at', 'id', 'modified_at', 'object_id', 'order', 'parent', 'type', 'url'].sort()
const auth = (who: Person) => ({ authorization: `Token ${who.token}` })
const counts = async (id: number) => {
  const c = await t.json(`/api/question_collections/${id}/`)
  return [c.question_count, c.item_count]
}

/** What ReactLite's getCollectionItemsAllPages does: pages of the default size until a short page. */
async function allPagesAsTheWebApp(parent: number, headers: Record<string, string> = {}) {
  const items: any[] = []
  for (let page = 1; ; page++) {
    const response = await t.get(`/api/question_collection_items/?parent=${parent}&ordering=order&page=${page}`, headers)
    assert.equal(response.statusCode, 200, response.body)
    const body = response.json()
    items.push(...body.results)
    if (body.results.length < 10 || page === Math.ceil(body.count / 10)) return { items, count: body.count }
  }
}

before(async () => {
  t = await createTestApp('tiny')
  world = collectionWorld(t)
  owner = await world.person()
  stranger = await world.person()
  staff = await world.person({ is_staff: true })
  collection = await world.collection(owner)
  for (let i = 0; i < 14; i++) questions.push(await world.question(stranger.id))
})
after(() => t.close())

describe('adding items as the clients do', () => {
  test('a question: {parent, object_id, type: "Q"} answers 201 with the full question as content_object', async () => {
    const item = await world.add(owner, { parent: collection.id, object_id: questions[0], type: 'Q' })
    assert.deepEqual(Object.keys(item).sort(), ITEM_FIELDS)
    assert.equal(item.type, 'Q')
    assert.equal(item.parent, collection.id)
    assert.equal(item.object_id, questions[0])
    assert.equal(item.content_object.id, questions[0])
    assert.equal(item.order, 0)
    assert.equal(item.url, `http://localhost:80/api/question_collection_items/${item.id}/`)
    assert.match(item.created_at, TIMESTAMP)
    const asQuestion = await t.json(`/api/questions/${questions[0]}/`, auth(owner))
    assert.deepEqual(item.content_object, asQuestion)
    assert.deepEqual(await counts(collection.id), [1, 1])
  })

  test('a break sent as a one-element array, as ReactLite creates it; null object_id', async () => {
    const item = await world.add(owner, {
      parent: collection.id,
      object_id: null,
      type: 'B',
      content_object: [{ title: 'Half way', text: '**Well** done' }],
    })
    assert.equal(item.type, 'B')
    assert.equal(item.object_id, null)
    assert.deepEqual(item.content_object, { title: 'Half way', text: '**Well** done' })
    assert.equal(item.order, 1)
    const asObject = await world.add(owner, { parent: collection.id, type: 'B', content_object: { title: 'Again', text: 'More' } })
    assert.deepEqual(asObject.content_object, { title: 'Again', text: 'More' })
    assert.equal(asObject.order, 2)
    assert.deepEqual(await counts(collection.id), [1, 3])
  })

  test('the legacy body {parent, question, order} adds a question item', async () => {
    const item = await world.add(owner, { parent: collection.id, question: questions[1], order: 7 })
    assert.equal(item.type, 'Q')
    assert.equal(item.object_id, questions[1])
    assert.equal(item.order, 7)
    const next = await world.add(owner, { parent: String(collection.id), object_id: String(questions[2]), type: 'Q' })
    assert.equal(next.order, 8, 'after the last item')
    assert.deepEqual(await counts(collection.id), [3, 5])
  })

  test('the same question twice is a 400 on object_id, and nothing changes', async () => {
    const response = await t.send(
      'POST',
      '/api/question_collection_items/',
      { parent: collection.id, object_id: questions[0], type: 'Q' },
      owner.token,
    )
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { object_id: ['This question is already in the collection.'] })
    assert.deepEqual(await counts(collection.id), [3, 5])
  })

  test('bad input answers 400 naming the field', async () => {
    const draft = await world.question(stranger.id, { publish: false })
    const cases: [unknown, Record<string, string[]>][] = [
      [{ object_id: questions[3], type: 'Q' }, { parent: ['This field is required.'] }],
      [{ parent: 999999, object_id: questions[3], type: 'Q' }, { parent: ['Invalid pk "999999" - object does not exist.'] }],
      [{ parent: 'abc', object_id: questions[3], type: 'Q' }, { parent: ['Incorrect type. Expected pk value, received str.'] }],
      [{ parent: collection.id, object_id: 999999, type: 'Q' }, { object_id: ['Invalid pk "999999" - object does not exist.'] }],
      [{ parent: collection.id, object_id: draft, type: 'Q' }, { object_id: [`Invalid pk "${draft}" - object does not exist.`] }],
      [{ parent: collection.id, object_id: true, type: 'Q' }, { object_id: ['Incorrect type. Expected pk value, received bool.'] }],
      [{ parent: collection.id, type: 'Q' }, { object_id: ['This field is required.'] }],
      [{ parent: collection.id }, { type: ['This field is required.'] }],
      [{ parent: collection.id, type: 'X', object_id: questions[3] }, { type: ['"X" is not a valid choice.'] }],
      [{ parent: collection.id, type: 'B' }, { content_object: ['This field is required.'] }],
      [
        { parent: collection.id, type: 'B', content_object: 'text' },
        { content_object: ['Invalid data. Expected a dictionary with title and text.'] },
      ],
      [{ parent: collection.id, type: 'B', content_object: [] }, { content_object: ['A break takes one {title, text} object.'] }],
      [
        { parent: collection.id, type: 'B', content_object: { title: 5, text: 'x' } },
        { content_object: ['title and text must be strings.'] },
      ],
      [
        { parent: collection.id, type: 'B', content_object: { title: 'x', text: 'y'.repeat(50000) } },
        { content_object: ['Ensure title has no more than 500 characters and text no more than 20000.'] },
      ],
      [{ parent: collection.id, object_id: questions[3], type: 'Q', order: 'first' }, { order: ['A valid integer is required.'] }],
      [
        { parent: collection.id, object_id: questions[3], type: 'Q', order: 1e12 },
        { order: ['Ensure this value is less than or equal to 2147483647.'] },
      ],
    ]
    for (const [body, expected] of cases) {
      const response = await t.send('POST', '/api/question_collection_items/', body, owner.token)
      assert.equal(response.statusCode, 400, `${JSON.stringify(body).slice(0, 80)}: ${response.body}`)
      assert.deepEqual(response.json(), expected, JSON.stringify(body).slice(0, 80))
    }
    const malformed = await t.request({
      method: 'POST',
      url: '/api/question_collection_items/',
      headers: { ...auth(owner), 'content-type': 'application/json' },
      payload: '{"parent": [',
    })
    assert.equal(malformed.statusCode, 400)
    assert.deepEqual(await counts(collection.id), [3, 5])
  })

  test("a stranger cannot add to another's collection; staff can", async () => {
    const refused = await t.send(
      'POST',
      '/api/question_collection_items/',
      { parent: collection.id, object_id: questions[3], type: 'Q' },
      stranger.token,
    )
    assert.equal(refused.statusCode, 403)
    const anonymous = await t.send('POST', '/api/question_collection_items/', { parent: collection.id, object_id: questions[3], type: 'Q' })
    assert.equal(anonymous.statusCode, 403)
    const byStaff = await world.add(staff, { parent: collection.id, object_id: questions[3], type: 'Q' })
    assert.equal(byStaff.order, 9)
    assert.deepEqual(await counts(collection.id), [4, 6])
  })
})

describe('reading items', () => {
  test('the web app pages through items with no page_size: pages of 10 in order', async () => {
    for (const q of questions.slice(4)) await world.add(owner, { parent: collection.id, object_id: q, type: 'Q' })
    const { items, count } = await allPagesAsTheWebApp(collection.id)
    assert.equal(count, 16)
    assert.equal(items.length, 16)
    const orders = items.map((item) => item.order)
    assert.deepEqual(
      orders,
      [...orders].sort((a, b) => a - b),
    )
    for (const item of items) {
      if (item.type === 'Q') assert.equal(item.content_object.id, item.object_id)
      else assert.deepEqual(Object.keys(item.content_object).sort(), ['text', 'title'])
    }
    const first = await t.json(`/api/question_collection_items/?parent=${collection.id}&ordering=order&page_size=10&page=1`)
    assert.equal(first.results.length, 10)
    assert.equal(first.count, 16)
    assert.deepEqual(await counts(collection.id), [14, 16])
  })

  test("others' drafts are left out for those who cannot see them", async () => {
    const draft = await world.question(owner.id, { publish: false })
    const item = await world.add(owner, { parent: collection.id, object_id: draft, type: 'Q' })
    const asOwner = await allPagesAsTheWebApp(collection.id, auth(owner))
    assert.ok(asOwner.items.some((i) => i.id === item.id))
    const asOther = await allPagesAsTheWebApp(collection.id, auth(stranger))
    assert.ok(!asOther.items.some((i) => i.id === item.id))
    assert.equal((await t.get(`/api/question_collection_items/${item.id}/`, auth(stranger))).statusCode, 404)
    assert.equal((await t.send('DELETE', `/api/question_collection_items/${item.id}/`, undefined, owner.token)).statusCode, 204)
  })

  test('the full form adds the collection', async () => {
    const page = await t.json(`/api/question_collection_items_full/?parent=${collection.id}&page_size=3`)
    assert.equal(page.results.length, 3)
    for (const item of page.results) {
      assert.equal(item.parent_info.id, collection.id)
      assert.match(item.url, /\/api\/question_collection_items_full\/\d+\/$/)
    }
  })

  test('a page of 16 items takes the statements of a page of 2', async () => {
    for (const base of ['question_collection_items', 'question_collection_items_full']) {
      const small = await t.get(`/api/${base}/?parent=${collection.id}&page_size=2`, auth(owner))
      const large = await t.get(`/api/${base}/?parent=${collection.id}&page_size=16`, auth(owner))
      assert.equal(large.json().results.length, 16)
      assert.equal(small.headers['x-query-count'], large.headers['x-query-count'], base)
    }
  })
})

describe('changing and removing items', () => {
  test('PATCH with the whole item as the web app received it (content_object stripped for Q)', async () => {
    const { items } = await allPagesAsTheWebApp(collection.id)
    const question = items.find((item) => item.type === 'Q')
    const { order: _, content_object: __, ...rest } = question
    const response = await t.send(
      'PATCH',
      `/api/question_collection_items/${question.id}/`,
      { order: 42, type: rest.type, object_id: rest.object_id, parent: rest.parent },
      owner.token,
    )
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.json().order, 42)
    const pause = items.find((item) => item.type === 'B')
    const whole = await t.send(
      'PATCH',
      `/api/question_collection_items/${pause.id}/`,
      { ...pause, order: 43, content_object: { title: 'Renamed', text: pause.content_object.text } },
      owner.token,
    )
    assert.equal(whole.statusCode, 200, whole.body)
    assert.equal(whole.json().order, 43)
    assert.deepEqual(whole.json().content_object, { title: 'Renamed', text: pause.content_object.text })
    const unchanged = await t.send('PATCH', `/api/question_collection_items/${question.id}/`, question, owner.token)
    assert.equal(unchanged.statusCode, 200, unchanged.body)
  })

  test('changing parent, type or question is refused; nothing changes', async () => {
    const other = await world.collection(owner)
    const { items } = await allPagesAsTheWebApp(collection.id)
    const question = items.find((item) => item.type === 'Q')
    const cases: [Record<string, unknown>, string][] = [
      [{ parent: other.id }, 'parent'],
      [{ type: 'B' }, 'type'],
      [{ object_id: questions[13] === question.object_id ? questions[12] : questions[13] }, 'object_id'],
      [{ order: 'soon' }, 'order'],
    ]
    for (const [body, field] of cases) {
      const response = await t.send('PATCH', `/api/question_collection_items/${question.id}/`, body, owner.token)
      assert.equal(response.statusCode, 400, response.body)
      assert.deepEqual(Object.keys(response.json()), [field])
    }
    const after = await t.json(`/api/question_collection_items/${question.id}/`)
    assert.deepEqual(
      [after.parent, after.type, after.object_id, after.order],
      [question.parent, question.type, question.object_id, question.order],
    )
  })

  test('a stranger cannot patch or delete items; the owner deletes and counts follow', async () => {
    const { items } = await allPagesAsTheWebApp(collection.id)
    const [q, b] = [items.find((i) => i.type === 'Q'), items.find((i) => i.type === 'B')]
    assert.equal((await t.send('PATCH', `/api/question_collection_items/${q.id}/`, { order: 1 }, stranger.token)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/question_collection_items/${q.id}/`, undefined, stranger.token)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/question_collection_items/${q.id}/`)).statusCode, 403)
    const before = await counts(collection.id)
    assert.equal((await t.send('DELETE', `/api/question_collection_items/${q.id}/`, undefined, owner.token)).statusCode, 204)
    assert.equal((await t.send('DELETE', `/api/question_collection_items_full/${b.id}/`, undefined, staff.token)).statusCode, 204)
    assert.deepEqual(await counts(collection.id), [before[0] - 1, before[1] - 2])
    assert.equal((await t.get(`/api/question_collection_items/${q.id}/`)).statusCode, 404)
    await assertCountersExact(t)
  })
})

describe('questions of a collection', () => {
  test('/api/questions/?in_collections__parent lists them in the collection order unless ordering says otherwise', async () => {
    const c = await world.collection(owner)
    const picked = [questions[5], questions[2], questions[9]]
    for (const q of picked) await world.add(owner, { parent: c.id, object_id: q, type: 'Q' })
    await world.add(owner, { parent: c.id, type: 'B', content_object: { title: 'x', text: 'y' }, order: 1 })
    const listed = await t.json(`/api/questions/?in_collections__parent=${c.id}`)
    assert.equal(listed.count, 3)
    assert.deepEqual(
      listed.results.map((q: any) => q.id),
      picked,
    )
    const byId = await t.json(`/api/questions/?in_collections__parent=${c.id}&ordering=id`)
    assert.deepEqual(
      byId.results.map((q: any) => q.id),
      [...picked].sort((a, b) => a - b),
    )
    const { items } = await allPagesAsTheWebApp(c.id)
    const last = items.find((i) => i.object_id === questions[9])
    await t.send('PATCH', `/api/question_collection_items/${last.id}/`, { order: -1 }, owner.token)
    const moved = await t.json(`/api/questions/?in_collections__parent=${c.id}`)
    assert.deepEqual(
      moved.results.map((q: any) => q.id),
      [questions[9], questions[5], questions[2]],
    )
  })

  test('creating a question into a collection and deleting a question keep the counters exact', async () => {
    const c = await world.collection(owner)
    const created = await t.send(
      'POST',
      '/api/questions/',
      { question: 'Should the library open on Sundays?', collections: [{ parent: { id: c.id } }] },
      owner.token,
    )
    assert.equal(created.statusCode, 201, created.body)
    assert.deepEqual(await counts(c.id), [1, 1])
    const removed = await t.send('DELETE', `/api/questions/${created.json().id}/`, undefined, owner.token)
    assert.equal(removed.statusCode, 204, removed.body)
    assert.deepEqual(await counts(c.id), [0, 0])
    await assertCountersExact(t)
  })
})
