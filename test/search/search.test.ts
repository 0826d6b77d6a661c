import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'

let t: TestApp
const ids: Record<string, number> = {}
let ownerToken: string

/** Every word here is unusual enough that the tiny seed holds none of it. */
before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  const owner = await insertUser(db, {
    username: 'zephyrine',
    first_name: 'Zelda',
    last_name: 'Quillfeather',
    bio: 'Writes about marmalade',
  })
  ownerToken = await t.tokenFor(owner.id)
  ids.owner = owner.id
  ids.titleMatch = (await insertQuestion(db, owner.id, { question: 'Should marmalade be served at school?', description: 'Breakfast' })).id
  ids.descriptionMatch = (
    await insertQuestion(db, owner.id, { question: 'Breakfast at school', description: 'Toast with marmalade or jam' })
  ).id
  ids.draft = (await insertQuestion(db, owner.id, { question: 'Marmalade draft', publish: false })).id
  ids.collection = (
    await db
      .insertInto('question_collections')
      .values({ user_id: owner.id, name: 'Marmalade matters', desc: 'Oranges' })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  ids.tag = (await db.insertInto('tags').values({ text: 'Marmalades', slug: 'marmalades' }).returning('id').executeTakeFirstOrThrow()).id
  ids.area = (
    await db
      .insertInto('areas')
      .values({ code: 'MARM1', name: 'Marmaladeshire', m_type: 'district' })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  const gone = await insertUser(db, { username: 'marmalade_gone', is_active: false })
  ids.gone = gone.id
})
after(() => t.close())

const search = async (query: string, headers: Record<string, string> = {}) => {
  const response = await t.get(`/api/search/?${query}`, headers)
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

test('one search finds every kind, each typed with a URL that answers', async () => {
  const page = await search('search=marmalade&page_size=100')
  const found = page.results.map((hit: { kind: string; id: number }) => `${hit.kind}:${hit.id}`)
  for (const expected of [
    `question:${ids.titleMatch}`,
    `question:${ids.descriptionMatch}`,
    `collection:${ids.collection}`,
    `tag:${ids.tag}`,
    `area:${ids.area}`,
    `user:${ids.owner}`,
  ])
    assert.ok(found.includes(expected), `${expected} in ${found}`)
  assert.equal(page.count, page.results.length)
  for (const hit of page.results) {
    assert.deepEqual(Object.keys(hit).sort(), ['id', 'kind', 'rank', 'snippet', 'title', 'url'])
    assert.equal((await t.get(new URL(hit.url).pathname)).statusCode, 200, hit.url)
  }
  const user = page.results.find((hit: { kind: string }) => hit.kind === 'user')
  assert.equal(user.title, 'Zelda Quillfeather')
  assert.equal(user.url, `http://localhost:80/api/users/${ids.owner}/`)
  assert.equal(page.results.find((hit: { kind: string }) => hit.kind === 'area').url, `http://localhost:80/api/geos/${ids.area}/`)
})

test('a title match ranks above a description match', async () => {
  const page = await search('search=marmalade&kind=question')
  const order = page.results.map((hit: { id: number }) => hit.id)
  assert.deepEqual(order, [ids.titleMatch, ids.descriptionMatch])
  assert.ok(page.results[0].rank > page.results[1].rank)
  const ranks = (await search('search=marmalade&page_size=100')).results.map((hit: { rank: number }) => hit.rank)
  assert.deepEqual(
    ranks,
    [...ranks].sort((a, b) => b - a),
  )
})

test('words match as prefixes, every word must match, and q is the same as search', async () => {
  assert.ok((await search('search=marm&kind=tag')).results.some((hit: { id: number }) => hit.id === ids.tag))
  assert.ok((await search('search=quillfe&kind=user')).results.some((hit: { id: number }) => hit.id === ids.owner))
  const both = await search('search=marmalade%20school&kind=question')
  assert.deepEqual(
    both.results.map((hit: { id: number }) => hit.id),
    [ids.titleMatch, ids.descriptionMatch],
  )
  assert.equal((await search('search=marmalade%20zzzqqq')).count, 0)
  assert.deepEqual(await search('q=marmalade&kind=collection'), await search('search=marmalade&kind=collection'))
})

test('kind narrows the search; drafts and deactivated people are never found, but the author finds their draft', async () => {
  const kinds = await search('search=marmalade&kind=tag,area&page_size=100')
  assert.deepEqual([...new Set(kinds.results.map((hit: { kind: string }) => hit.kind))].sort(), ['area', 'tag'])
  const everything = (await search('search=marmalade&page_size=100')).results.map(
    (hit: { kind: string; id: number }) => `${hit.kind}:${hit.id}`,
  )
  assert.ok(!everything.includes(`question:${ids.draft}`))
  assert.ok(!everything.includes(`user:${ids.gone}`))
  const mine = await search('search=marmalade&kind=question', { authorization: `Token ${ownerToken}` })
  assert.ok(mine.results.some((hit: { id: number }) => hit.id === ids.draft))
})

test('pages carry the envelope and take one statement', async () => {
  const first = await t.get('/api/search/?search=marmalade&page_size=2')
  assert.equal(first.headers['x-query-count'], '1')
  const body = first.json()
  assert.equal(body.results.length, 2)
  assert.ok(body.count >= 6)
  assert.match(body.next, /page=2/)
  const last = await search('search=marmalade&page_size=2&page=last')
  assert.equal(last.next, null)
  assert.equal((await t.get('/api/search/?search=marmalade&page=99')).statusCode, 404)
})

test('a missing or empty search, or an unknown kind, is a 400 naming the field', async () => {
  for (const [query, field] of [
    ['', 'search'],
    ['search=', 'search'],
    ['search=%20%2B%2B', 'search'],
    ['search=marmalade&kind=planet', 'kind'],
    [`search=${'a'.repeat(501)}`, 'search'],
  ]) {
    const response = await t.get(`/api/search/?${query}`)
    assert.equal(response.statusCode, 400, query)
    assert.ok(field in response.json(), `${query}: ${response.body}`)
  }
})
