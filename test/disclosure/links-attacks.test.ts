import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'

/**
 * Shareable links, attacked as a curious user would: a link opens only what anyone may see now, with the figures
 * an anonymous caller sees; a draft never shows, whoever made the link and whoever opens it.
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const DRAFT = { question: 'Draft: close the night bus lines?', description: 'Secret plan, not ready' }

const as = (who: string) => ({ authorization: `Token ${people[who].token}` })
const share = (who: string, body: unknown) => t.send('POST', '/api/create_shareable_link/', body, people[who].token)
const path = (link: { share_url: string }) => new URL(link.share_url).pathname
const created = async (who: string, body: unknown) => {
  const response = await share(who, body)
  assert.equal(response.statusCode, 201, response.body)
  return response.json() as { share_url: string; id: number }
}
const ask = async (body: Record<string, unknown>) => {
  const response = await t.send('POST', '/api/questions/', body, people.author.token)
  assert.equal(response.statusCode, 201, response.body)
  return response.json().id as number
}
const answer = async (who: string, question: number, value: number) => {
  const response = await t.send('POST', '/api/question_votes/', { object_id: question, value, private: false }, people[who].token)
  assert.ok(response.statusCode < 300, response.body)
}
const collect = async (name: string, questions: number[]) => {
  const response = await t.send('POST', '/api/question_collections/', { name }, people.author.token)
  assert.equal(response.statusCode, 201, response.body)
  const id = response.json().id as number
  for (const question of questions) await addItem(id, question)
  return id
}
const addItem = async (collection: number, question: number) => {
  const response = await t.send(
    'POST',
    '/api/question_collection_items/',
    { parent: collection, object_id: question, type: 'Q' },
    people.author.token,
  )
  assert.equal(response.statusCode, 201, response.body)
}
const publish = async (question: number, value: boolean) => {
  const response = await t.send('PATCH', `/api/questions/${question}/`, { publish: value }, people.author.token)
  assert.equal(response.statusCode, 200, response.body)
}
/** Nothing of the draft in a body, in any form. */
const noDraft = (body: string, draft: number) => {
  assert.ok(!body.includes(DRAFT.question), 'the draft title leaked')
  assert.ok(!body.includes(DRAFT.description), 'the draft description leaked')
  assert.ok(!body.includes(`/api/questions/${draft}/`), 'the draft is named')
}
const ids = (body: { questions: { id: number }[] }) => body.questions.map((question) => question.id)

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['author', 'attacker', 'voter', 'staff']) {
    const row = await insertUser(t.database.db, { username: `links_${name}`, is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
})
after(() => t.close())

test("a link to a collection holding someone's draft: the page leaves the draft out, as JSON and as HTML", async () => {
  const open = await ask({ question: 'Should the library open on Sundays?' })
  const draft = await ask({ ...DRAFT, publish: false })
  await answer('voter', open, 4)
  await answer('author', draft, 2)
  const collection = await collect('Town services', [draft, open])
  assert.equal((await t.get(`/api/questions/${draft}/`, as('attacker'))).statusCode, 404)

  const link = await created('attacker', { collection })
  const json = await t.get(path(link))
  assert.equal(json.statusCode, 200, json.body)
  assert.deepEqual(ids(json.json()), [open])
  noDraft(json.body, draft)
  // The figures are the anonymous question detail's, whoever opens the link.
  assert.deepEqual(json.json().questions[0], (await t.get(`/api/questions/${open}/`)).json())
  const html = await t.get(path(link), { accept: 'text/html' })
  assert.equal(html.statusCode, 200)
  assert.match(String(html.headers['content-type']), /^text\/html/)
  assert.ok(html.body.includes('Should the library open on Sundays?'))
  noDraft(html.body, draft)
  // Opened by staff or by the draft's author, the page is still the anonymous one.
  for (const who of ['staff', 'author']) {
    const seen = await t.get(path(link), as(who))
    assert.deepEqual(ids(seen.json()), [open], who)
    noDraft(seen.body, draft)
  }
})

test('a link to a draft question directly: refused as unknown to others, refused to its author', async () => {
  const draft = await ask({ ...DRAFT, publish: false })
  const unknown = await share('attacker', { question: draft })
  assert.equal(unknown.statusCode, 400)
  assert.deepEqual(unknown.json(), { question: [`Invalid pk "${draft}" - object does not exist.`] })
  // The same answer as for a question that does not exist at all: the draft's existence does not show.
  const nothing = await share('attacker', { question: 2_000_000_000 })
  assert.deepEqual(Object.keys(nothing.json()), ['question'])
  assert.match(nothing.json().question[0], /^Invalid pk "2000000000" - object does not exist\.$/)
  const own = await share('author', { question: draft })
  assert.equal(own.statusCode, 400)
  assert.deepEqual(own.json(), { question: ['Only published questions can be shared.'] })
  assert.equal((await share('staff', { question: draft })).statusCode, 400)
})

test('a link after its question is unpublished: 404 as JSON and HTML, and the collection page drops it', async () => {
  const question = await ask({ ...DRAFT })
  const other = await ask({ question: 'Should the market move to the square?' })
  await answer('voter', question, 5)
  const collection = await collect('Night and market', [question, other])
  const direct = await created('attacker', { question })
  const viaCollection = await created('attacker', { collection })
  assert.equal((await t.get(path(direct))).json().question.question, DRAFT.question)
  assert.deepEqual(ids((await t.get(path(viaCollection))).json()), [question, other])

  await publish(question, false)
  const gone = await t.get(path(direct))
  assert.equal(gone.statusCode, 404)
  assert.deepEqual(gone.json(), { detail: 'Not found.' })
  noDraft(gone.body, question)
  const page = await t.get(path(direct), { accept: 'text/html' })
  assert.equal(page.statusCode, 404)
  noDraft(page.body, question)
  // Not even its author or staff reopen it through the link.
  for (const who of ['author', 'staff']) assert.equal((await t.get(path(direct), as(who))).statusCode, 404, who)
  const rest = await t.get(path(viaCollection))
  assert.deepEqual(ids(rest.json()), [other])
  noDraft(rest.body, question)
  noDraft((await t.get(path(viaCollection), { accept: 'text/html' })).body, question)

  // Published again, the link (still valid) opens it again.
  await publish(question, true)
  assert.equal((await t.get(path(direct))).statusCode, 200)
})

test('a collection link made by the author: a draft added later never shows, to anyone', async () => {
  const open = await ask({ question: 'Should the pool open earlier?' })
  const collection = await collect('Pools', [open])
  const link = await created('author', { collection })
  const draft = await ask({ ...DRAFT, publish: false })
  await answer('author', draft, 3)
  await addItem(collection, draft)
  for (const headers of [{}, as('author'), as('staff'), { accept: 'text/html' }] as Record<string, string>[]) {
    const response = await t.get(path(link), headers)
    assert.equal(response.statusCode, 200)
    noDraft(response.body, draft)
  }
  assert.deepEqual(ids((await t.get(path(link))).json()), [open])
})
