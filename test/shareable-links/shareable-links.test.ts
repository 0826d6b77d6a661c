import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const ids: Record<string, number> = {}

const as = (who: string) => ({ authorization: `Token ${people[who].token}` })
const share = (who: string, body: unknown) => t.send('POST', '/api/create_shareable_link/', body, people[who].token)
const created = async (who: string, body: unknown) => {
  const response = await share(who, body)
  assert.equal(response.statusCode, 201, response.body)
  return response.json()
}
const open = (link: { share_url: string }, headers: Record<string, string> = {}) => t.get(new URL(link.share_url).pathname, headers)

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['owner', 'voter', 'stranger', 'staff']) {
    const row = await insertUser(t.database.db, { username: `share_${name}`, is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const ask = async (body: Record<string, unknown>) => {
    const response = await t.send('POST', '/api/questions/', body, people.owner.token)
    assert.equal(response.statusCode, 201, response.body)
    return response.json().id as number
  }
  ids.question = await ask({ question: 'Should the pool open earlier?' })
  ids.bold = await ask({ question: 'A question <b>in bold</b>?' })
  ids.draft = await ask({ question: 'A draft only I see', publish: false })
  for (const [id, value, who] of [
    [ids.question, 5, 'voter'],
    [ids.bold, 2, 'owner'],
    [ids.draft, 2, 'owner'],
  ] as const) {
    const vote = await t.send('POST', '/api/question_votes/', { object_id: id, value }, people[who].token)
    assert.ok(vote.statusCode < 300, vote.body)
  }
  const collection = await t.send('POST', '/api/question_collections/', { name: 'Pools & parks' }, people.owner.token)
  ids.collection = collection.json().id
  for (const id of [ids.question, ids.draft, ids.bold])
    await t.send('POST', '/api/question_collection_items/', { parent: ids.collection, object_id: id, type: 'Q' }, people.owner.token)
})
after(() => t.close())

test('a link to a question: signed, expiring, listed for its creator; its page shows the same figures as the question', async () => {
  const link = await created('owner', { question: ids.question, expires_in_days: 7 })
  assert.deepEqual(Object.keys(link).sort(), [
    'collection',
    'created_at',
    'expires_at',
    'id',
    'question',
    'revoked',
    'revoked_at',
    'share_url',
    'token',
    'url',
  ])
  assert.match(link.token, /^\d+\.\d+\.[A-Za-z0-9_-]{43}$/)
  assert.equal(link.share_url, `http://localhost:80/shared/${link.token}/`)
  assert.equal(link.question, `http://localhost:80/api/questions/${ids.question}/`)
  assert.equal(link.collection, null)
  assert.equal(link.revoked, false)
  const days = (Date.parse(link.expires_at) - Date.now()) / 86_400_000
  assert.ok(days > 6.9 && days <= 7, `${days} days`)
  assert.match(link.created_at, TIMESTAMP)

  const shared = await open(link)
  assert.equal(shared.statusCode, 200, shared.body)
  const body = shared.json()
  assert.equal(body.kind, 'question')
  const question = (await t.get(`/api/questions/${ids.question}/`)).json()
  assert.deepEqual(body.question, question)
  assert.deepEqual(body.questions, [question])
  assert.equal(body.question.direct_vote_count, 1)
  assert.equal(body.question.direct_maximum, 1)

  const mine = (await t.get('/api/create_shareable_link/', as('owner'))).json()
  assert.ok(mine.results.some((item: { id: number }) => item.id === link.id))
  assert.equal((await t.get('/api/create_shareable_link/', as('stranger'))).json().count, 0)
  assert.deepEqual((await t.get(new URL(link.url).pathname, as('owner'))).json(), link)
})

test('in a browser the link opens a page of the results, escaped; format=json gives JSON', async () => {
  const link = await created('owner', { question: ids.bold })
  const page = await open(link, { accept: 'text/html' })
  assert.equal(page.statusCode, 200)
  assert.match(String(page.headers['content-type']), /^text\/html/)
  assert.ok(page.body.includes('A question &lt;b&gt;in bold&lt;/b&gt;?'), page.body.slice(0, 400))
  assert.ok(!page.body.includes('<b>in bold</b>'))
  assert.match(page.body, /1 answers/)
  assert.ok(!page.body.includes('share_owner'), 'nobody is named')
  const json = await t.get(`${new URL(link.share_url).pathname}?format=json`, { accept: 'text/html' })
  assert.equal(json.json().question.id, ids.bold)
})

test('a draft cannot be shared: unknown to strangers, refused to its author and to staff', async () => {
  assert.equal((await t.get(`/api/questions/${ids.draft}/`)).statusCode, 404)
  const unknown = await share('stranger', { question: ids.draft })
  assert.equal(unknown.statusCode, 400)
  assert.deepEqual(unknown.json(), { question: [`Invalid pk "${ids.draft}" - object does not exist.`] })
  for (const who of ['owner', 'staff']) {
    const refused = await share(who, { question: ids.draft })
    assert.equal(refused.statusCode, 400, who)
    assert.deepEqual(refused.json(), { question: ['Only published questions can be shared.'] })
  }
})

test("a collection's link shows each of its published questions' figures in its order", async () => {
  const link = await created('stranger', { collection: ids.collection })
  const body = (await open(link)).json()
  assert.equal(body.kind, 'collection')
  assert.equal(body.collection.id, ids.collection)
  assert.equal(body.question, null)
  assert.deepEqual(
    body.questions.map((question: { id: number }) => question.id),
    [ids.question, ids.bold],
  )
})

test('revoked: 410; expired: 410; forged or altered: 404; only the creator revokes', async () => {
  const link = await created('owner', { question: ids.question })
  assert.equal((await t.send('DELETE', new URL(link.url).pathname, undefined, people.stranger.token)).statusCode, 403)
  assert.equal((await open(link)).statusCode, 200)
  assert.equal((await t.send('DELETE', new URL(link.url).pathname, undefined, people.owner.token)).statusCode, 204)
  const revoked = await open(link)
  assert.equal(revoked.statusCode, 410)
  assert.match(revoked.json().detail, /revoked/)
  assert.equal((await t.get(new URL(link.url).pathname, as('owner'))).json().revoked, true)

  const old = await created('owner', { question: ids.question })
  await t.database.db
    .updateTable('shareable_links')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', old.id)
    .execute()
  // The stored expiry is what counts: the token's own (still in the future) cannot keep it open.
  const expired = await open(old)
  assert.equal(expired.statusCode, 410)
  assert.match(expired.json().detail, /expired/)

  const fresh = await created('owner', { question: ids.question })
  const [id, expires, signature] = fresh.token.split('.')
  for (const token of [
    `${id}.${Number(expires) + 86400}.${signature}`,
    `${Number(id) + 1}.${expires}.${signature}`,
    `${id}.${expires}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
    'not-a-token',
  ])
    assert.equal((await t.get(`/shared/${encodeURIComponent(token)}/`)).statusCode, 404, token)
})

test('bad bodies name their field', async () => {
  for (const [body, field] of [
    [{}, 'non_field_errors'],
    [{ question: ids.question, collection: ids.collection }, 'non_field_errors'],
    [{ question: 99999999 }, 'question'],
    [{ collection: 99999999 }, 'collection'],
    [{ question: 'one' }, 'question'],
    [{ question: ids.question, expires_in_days: 0 }, 'expires_in_days'],
    [{ question: ids.question, expires_in_days: 366 }, 'expires_in_days'],
  ] as const) {
    const response = await share('owner', body)
    assert.equal(response.statusCode, 400, JSON.stringify(body))
    assert.ok(field in response.json(), `${JSON.stringify(body)}: ${response.body}`)
  }
  assert.equal((await t.send('POST', '/api/create_shareable_link/', { question: ids.question })).statusCode, 403)
})

test('the page draws each question: the shares it draws are the shares of the figures served, with their margins', async () => {
  const question = (await t.send('POST', '/api/questions/', { question: 'Should the library open on Sundays?' }, people.owner.token)).json()
    .id as number
  for (const [i, value] of [1, 2, 2, 5, null, 5, 5].entries()) {
    const row = await insertUser(t.database.db, { username: `share_picture_${i}` })
    const body = value === null ? { object_id: question, skipped: true } : { object_id: question, value }
    const vote = await t.send('POST', '/api/question_votes/', body, await t.tokenFor(row.id))
    assert.equal(vote.statusCode, 201, vote.body)
  }
  const link = await created('owner', { question })
  const page = await open(link, { accept: 'text/html' })
  assert.equal(page.statusCode, 200)
  const served = (await open(link)).json().question
  const drawn = [...page.body.matchAll(/<g class="bar" data-answer="(\d)" data-kind="(direct|liquid)" data-percent="([\d.]+)">(.*?)<\/g>/g)]
  assert.equal(drawn.length, 10, 'five levels, direct and counting delegations')
  const levels = ['minimum', 'low', 'medium', 'high', 'maximum']
  for (const [, answer, kind, percent, mark] of drawn) {
    const expected = (100 * served[`${kind}_${levels[Number(answer)]}`]) / served[`${kind}_vote_count`]
    assert.equal(Number(percent), Math.round(expected * 10) / 10, `${kind} ${answer}`)
    assert.ok(mark.includes(`>${Number(percent)}%</text>`), 'the share is written beside its bar')
    // Each direct share carries its 95 % margin (6 ratings: none of them is 0 or 100 %, so every line has length).
    if (kind === 'direct' && served[`direct_${levels[Number(answer)]}`] > 0) assert.match(mark, /<line /)
  }
  assert.deepEqual(
    levels.map((level) => served[`direct_${level}`]),
    [1, 2, 0, 0, 3],
  )
  const collectionLink = await created('owner', { collection: ids.collection })
  const collectionPage = await open(collectionLink, { accept: 'text/html' })
  const sections = (await open(collectionLink)).json().questions.length
  assert.equal(collectionPage.body.match(/<svg class="picture"/g)?.length, sections, 'one picture per question')
})

test('the page draws each likert question weighted to the census, as question_weighted_demographics draws it', async () => {
  const question = (await t.send('POST', '/api/questions/', { question: 'Should the pool open earlier?' }, people.owner.token)).json()
    .id as number
  for (const [i, value] of [1, 4, 4, 5, 2].entries()) {
    const row = await insertUser(t.database.db, { username: `share_weighted_${i}` })
    assert.equal((await t.send('POST', '/api/question_votes/', { object_id: question, value }, await t.tokenFor(row.id))).statusCode, 201)
  }
  const page = await open(await created('owner', { question }), { accept: 'text/html' })
  assert.equal(page.statusCode, 200)
  const figure = page.body.match(/<figure class="weighted">(<svg[\s\S]*?<\/svg>)\n?<\/figure>/)
  assert.ok(figure, 'a weighted picture')
  const own = await t.get(`/api/question_weighted_demographics/${question}/age/?format=svg`)
  assert.equal(figure[1].trim(), own.body.trim(), 'the very picture the weighted result draws')
  assert.match(figure[1], new RegExp(`aria-labelledby="weighted-${question}-age"`))
  // A collection's page: one weighted picture per likert question, each titled by its own id.
  const collectionLink = await created('owner', { collection: ids.collection })
  const questions = (await open(collectionLink)).json().questions as { id: number; subtype: string }[]
  const collectionPage = await open(collectionLink, { accept: 'text/html' })
  const titled = [...collectionPage.body.matchAll(/<title id="weighted-(\d+)-age">/g)].map((m) => Number(m[1]))
  assert.deepEqual(
    titled,
    questions.filter((q) => q.subtype !== 'mcq').map((q) => q.id),
  )
})
