import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { assertAreaShape, assertStatistics, TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

describe('tags', () => {
  test('fields the clients read, search and detail', async () => {
    const body = await t.json('/api/tags/?page=1&page_size=8&search=env&ordering=-questions_count')
    assert.ok(body.results.length >= 1)
    for (const tag of body.results) {
      assert.match(tag.text, /env/i)
      for (const field of ['id', 'followers_count', 'questions_count', 'votes_count']) assert.ok(Number.isInteger(tag[field]))
      assert.equal(typeof tag.following, 'boolean')
      assert.ok('image' in tag)
    }
    const one = body.results[0]
    assert.deepEqual(await t.json(`/api/tags/${one.id}/`), one)
  })

  test('following is true for the tags the caller follows', async () => {
    const follow = await t.database.db.selectFrom('following_tags').select(['user_id', 'tag_id']).executeTakeFirstOrThrow()
    const token = await t.tokenFor(follow.user_id)
    assert.equal((await t.json(`/api/tags/${follow.tag_id}/`, { authorization: `Token ${token}` })).following, true)
    assert.equal((await t.json(`/api/tags/${follow.tag_id}/`)).following, false)
  })

  test('questions_count equals the questions carrying the tag', async () => {
    for (const tag of (await t.json('/api/tags/?page_size=100')).results) {
      const { count } = await t.database.db
        .selectFrom('question_tags')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('tag_id', '=', tag.id)
        .executeTakeFirstOrThrow()
      assert.equal(tag.questions_count, Number(count), tag.text)
    }
  })

  test('quick_tags lists the featured tags only', async () => {
    const quick = await t.json('/api/quick_tags/')
    const featured = await t.database.db
      .selectFrom('tags')
      .select('id')
      .where('quick_order', 'is not', null)
      .orderBy('quick_order')
      .execute()
    assert.deepEqual(
      quick.results.map((tag: any) => tag.id),
      featured.map((row) => row.id),
    )
  })
})

describe('areas', () => {
  test('geos: area objects of spec 2.3, filtered by type and parent', async () => {
    const regions = await t.json('/api/geos/?m_type=region&page_size=100')
    assert.equal(regions.count, 12, 'the UK regions and nations')
    for (const area of regions.results) {
      assertAreaShape(area)
      assert.equal(area.m_type, 'region')
    }
    const uk = await t.json(`/api/geos/${regions.results[0].parent}/`)
    assert.equal(uk.ID, 'GB')
    assert.equal(uk.m_type, 'country')
    const children = await t.json(`/api/geos/?parent=${uk.id}&page_size=100`)
    assert.equal(children.count, 12)
  })

  test('simple_geos: the light form that parent_url points at', async () => {
    const region = (await t.json('/api/geos/?m_type=region')).results[0]
    const parent = await t.get(region.parent_url.replace('http://localhost:80', ''))
    assert.equal(parent.statusCode, 200)
    assert.deepEqual(Object.keys(parent.json()).sort(), ['ID', 'id', 'm_type', 'name', 'parent', 'parent_url', 'url'])
    assert.equal(parent.json().ID, 'GB')
  })

  test('politicians of an area are listed by id', async () => {
    const politician = await t.database.db
      .selectFrom('politicians')
      .select(['id', 'area_id'])
      .where('area_id', 'is not', null)
      .executeTakeFirstOrThrow()
    const area = await t.json(`/api/geos/${politician.area_id}/`)
    assert.ok(area.politicians.includes(politician.id))
  })
})

describe('question choices (listing form of spec 2.7)', () => {
  test('each choice names its question by URL and carries both families', async () => {
    const body = await t.json('/api/question_choices/?page_size=100')
    assert.ok(body.count > 0)
    for (const choice of body.results) {
      assert.match(choice.question, /\/api\/questions\/\d+\/$/)
      assert.equal(choice.url, undefined)
      assert.ok(Number.isInteger(choice.store_number))
      assert.match(choice.created_at, TIMESTAMP)
      assertStatistics(choice, 'direct')
      assertStatistics(choice, 'liquid')
    }
  })

  test('filter by question, in store order, and the detail', async () => {
    const q = (await t.json('/api/questions/?subtype=mcq')).results[0]
    const choices = await t.json(`/api/question_choices/?question=${q.id}`)
    assert.deepEqual(
      choices.results.map((c: any) => c.id),
      q.choices.map((c: any) => c.id),
    )
    const one = await t.json(`/api/question_choices/${q.choices[0].id}/`)
    assert.equal(one.text, q.choices[0].text)
    assert.equal(one.direct_vote_count, q.choices[0].direct_vote_count)
  })
})
