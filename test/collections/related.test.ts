import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag } from '../helpers/fixtures.ts'
import { collectionWorld, type Person } from './support.ts'

let t: TestApp
let world: ReturnType<typeof collectionWorld>
let owner: Person, staff: Person, stranger: Person
const voters: Person[] = []
let collection: any

const auth = (who?: Person): Record<string, string> => (who ? { authorization: `Token ${who.token}` } : {})

async function answer(who: Person, question: number, value: number | null, isPrivate: boolean) {
  const response = await t.send(
    'POST',
    '/api/question_votes/',
    { object_id: question, value, private: isPrivate, collection: collection.id },
    who.token,
  )
  assert.equal(response.statusCode, 201, response.body)
}

before(async () => {
  t = await createTestApp('tiny')
  world = collectionWorld(t)
  owner = await world.person()
  staff = await world.person({ is_staff: true })
  stranger = await world.person()
  for (let i = 0; i < 3; i++) voters.push(await world.person())
  collection = await world.collection(owner)
  const likert = [await world.question(owner.id), await world.question(owner.id), await world.question(owner.id)]
  const mcq = await world.question(owner.id)
  await t.database.db.updateTable('questions').set({ subtype: 'mcq' }).where('id', '=', mcq).execute()
  const choice = await t.database.db
    .insertInto('question_choices')
    .values({ question_id: mcq, text: 'Yes', store_number: 0 })
    .returning('id')
    .executeTakeFirstOrThrow()
  for (const q of [...likert, mcq]) await world.add(owner, { parent: collection.id, object_id: q, type: 'Q' })
  await world.add(owner, { parent: collection.id, type: 'B', content_object: { title: 'Break', text: '' } })
  const [v1, v2, v3] = voters
  await answer(v1, likert[0], 5, false)
  await answer(v1, likert[1], null, false)
  await answer(v1, likert[2], 2, false)
  const pick = await t.send('POST', '/api/question_choice_votes/', { object_id: choice.id, value: 5, collection: collection.id }, v1.token)
  assert.equal(pick.statusCode, 201, pick.body)
  await answer(v2, likert[0], 1, true)
  await answer(v2, likert[1], 1, true)
  await answer(v3, likert[0], 3, false)
  await answer(v3, likert[2], 4, true)
})
after(() => t.close())

describe('question_collection_users', () => {
  const seenBy = async (who?: Person) => {
    const page = await t.json(`/api/question_collection_users/?parent=${collection.id}`, auth(who))
    return page.results.map((row: any) => [row.id, row.answered_count])
  }

  test('who answered and how many, most first; private answers only for their author and staff', async () => {
    const [v1, v2, v3] = voters
    assert.deepEqual(await seenBy(), [
      [v1.id, 4],
      [v3.id, 1],
    ])
    assert.deepEqual(await seenBy(stranger), [
      [v1.id, 4],
      [v3.id, 1],
    ])
    assert.deepEqual(await seenBy(v2), [
      [v1.id, 4],
      [v2.id, 2],
      [v3.id, 1],
    ])
    // Ties go to the latest answer first.
    assert.deepEqual(await seenBy(staff), [
      [v1.id, 4],
      [v3.id, 2],
      [v2.id, 2],
    ])
  })

  test('the shape: reduced user, answered in percent, last answer time', async () => {
    const page = await t.json(`/api/question_collection_users/?parent=${collection.id}&user=${voters[0].id}`)
    assert.equal(page.count, 1)
    const row = page.results[0]
    assert.deepEqual(Object.keys(row).sort(), ['answered', 'answered_count', 'id', 'last_answered_at', 'parent', 'user', 'user_url'])
    assert.equal(row.user.id, voters[0].id)
    assert.ok(!('locations' in row.user))
    assert.equal(row.answered, 100)
    assert.equal(row.parent, collection.id)
  })

  test('parent is required and must exist', async () => {
    const missing = await t.get('/api/question_collection_users/')
    assert.equal(missing.statusCode, 400)
    assert.deepEqual(missing.json(), { parent: ['This field is required.'] })
    const unknown = await t.get('/api/question_collection_users/?parent=999999')
    assert.equal(unknown.statusCode, 400)
    assert.deepEqual(Object.keys(unknown.json()), ['parent'])
  })
})

describe('collection_stats', () => {
  test('counts, answerers, answers and completion, private answers counted in the totals', async () => {
    // The arithmetic at MIN_CELL_SIZE=1, where every answer counts; the default cell size is tested below.
    const t1 = await createTestApp('tiny', { MIN_CELL_SIZE: '1' }, undefined, { database: t.database })
    try {
      await arithmetic(t1)
    } finally {
      await t1.close()
    }
  })

  const arithmetic = async (t1: TestApp) => {
    const page = await t1.json(`/api/collection_stats/?collection=${collection.id}`)
    assert.equal(page.count, 1)
    const stats = page.results[0]
    assert.deepEqual(
      { ...stats, url: undefined, collection_url: undefined },
      {
        id: collection.id,
        url: undefined,
        collection: collection.id,
        collection_url: undefined,
        question_count: 4,
        item_count: 5,
        answerers: 3,
        answers: 8,
        complete_count: 1,
        completion: 66.67,
      },
    )
    assert.deepEqual(await t1.json(`/api/collection_stats/${collection.id}/`), stats)
    const empty = await world.collection(owner)
    const none = await t1.json(`/api/collection_stats/${empty.id}/`)
    assert.deepEqual([none.answerers, none.answers, none.completion], [undefined, undefined, undefined])
    assert.equal(none.question_count, 0)
    assert.equal((await t1.get('/api/collection_stats/999999/')).statusCode, 404)
  }

  test('at the default cell size, three answerers are too few: only the counts of questions and items', async () => {
    const stats = await t.json(`/api/collection_stats/${collection.id}/`)
    assert.deepEqual(Object.keys(stats).sort(), ['collection', 'collection_url', 'id', 'item_count', 'question_count', 'url'])
  })

  test('a page of stats takes the statements of a page of one', async () => {
    for (let i = 0; i < 5; i++) await world.collection(owner)
    const small = await t.get('/api/collection_stats/?page_size=1')
    const large = await t.get('/api/collection_stats/?page_size=50')
    assert.ok(large.json().results.length > 5)
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })
})

describe('question_collection_tags', () => {
  test('the owner tags a collection and removes the tag; the full form shows it', async () => {
    const tag = await insertTag(t.database.db)
    const created = await t.send('POST', '/api/question_collection_tags/', { collection: collection.id, tag: tag.id }, owner.token)
    assert.equal(created.statusCode, 201, created.body)
    const row = created.json()
    assert.deepEqual([row.collection, row.tag, row.tag_info.text], [collection.id, tag.id, tag.text])
    const listed = await t.json(`/api/question_collection_tags/?collection=${collection.id}`)
    assert.deepEqual(
      listed.results.map((r: any) => r.id),
      [row.id],
    )
    assert.deepEqual(
      (await t.json(`/api/question_collections_full/${collection.id}/`)).tags.map((x: any) => x.id),
      [tag.id],
    )
    const again = await t.send('POST', '/api/question_collection_tags/', { collection: collection.id, tag: tag.id }, owner.token)
    assert.equal(again.statusCode, 400)
    assert.deepEqual(again.json(), { non_field_errors: ['The fields collection, tag must make a unique set.'] })
    assert.equal((await t.send('DELETE', `/api/question_collection_tags/${row.id}/`, undefined, stranger.token)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/question_collection_tags/${row.id}/`, undefined, owner.token)).statusCode, 204)
    assert.equal((await t.json(`/api/question_collection_tags/?collection=${collection.id}`)).count, 0)
  })

  test("a stranger cannot tag another's collection; unknown ids are 400 on their field", async () => {
    const tag = await insertTag(t.database.db)
    assert.equal(
      (await t.send('POST', '/api/question_collection_tags/', { collection: collection.id, tag: tag.id }, stranger.token)).statusCode,
      403,
    )
    const unknown = await t.send('POST', '/api/question_collection_tags/', { collection: 999999, tag: 999998 }, owner.token)
    assert.equal(unknown.statusCode, 400)
    assert.deepEqual(unknown.json(), {
      collection: ['Invalid pk "999999" - object does not exist.'],
      tag: ['Invalid pk "999998" - object does not exist.'],
    })
    const wrong = await t.send('POST', '/api/question_collection_tags/', { collection: 'x', tag: [1] }, owner.token)
    assert.equal(wrong.statusCode, 400)
    assert.deepEqual(Object.keys(wrong.json()).sort(), ['collection', 'tag'])
  })
})
