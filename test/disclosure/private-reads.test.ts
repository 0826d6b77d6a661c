import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

/**
 * Staff read every vote through the vote listings and details, as documented; each response that shows them
 * other people's private votes is written to the audit log, one row per request, which only staff can list.
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const crowd: { id: number; token: string }[] = []
const ids: Record<string, number> = {}

const as = (who: string) => ({ authorization: `Token ${people[who].token}` })
const log = async (query = '', who = 'staff') => {
  const response = await t.get(`/api/private_answer_reads/${query}`, as(who))
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}
const logSize = async () => (await log()).count as number
const vote = async (token: string, resource: string, body: Record<string, unknown>) => {
  const response = await t.send('POST', `/api/${resource}/`, body, token)
  assert.ok(response.statusCode < 300, response.body)
  return response.json().id as number
}

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['author', 'secret', 'open', 'staff', 'other_staff', 'stranger']) {
    const row = await insertUser(t.database.db, { username: `reads_${name}`, is_staff: name.endsWith('staff') })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  for (let i = 0; i < 12; i++) {
    const row = await insertUser(t.database.db, { username: `reads_crowd_${i}` })
    crowd.push({ id: row.id, token: await t.tokenFor(row.id) })
  }
  const ask = async (body: Record<string, unknown>) => {
    const response = await t.send('POST', '/api/questions/', body, people.author.token)
    assert.equal(response.statusCode, 201, response.body)
    return response.json()
  }
  const tag = await insertTag(t.database.db)
  const likert = await ask({ question: 'Should the bridge be rebuilt?', tags: [{ tag: { id: tag.id } }] })
  ids.likert = likert.id
  ids.questionTag = likert.tags[0].id
  ids.publicOnly = (await ask({ question: 'Should the park get benches?' })).id
  ids.crowded = (await ask({ question: 'Should the square be car-free?' })).id
  const mcq = await ask({ question: 'Which day for the market?', subtype: 'mcq', choices: [{ text: 'Saturday' }, { text: 'Sunday' }] })
  ids.mcq = mcq.id
  ids.choice = mcq.choices[0].id

  ids.secretVote = await vote(people.secret.token, 'question_votes', { object_id: ids.likert, value: 1, private: true })
  ids.openVote = await vote(people.open.token, 'question_votes', { object_id: ids.likert, value: 5, private: false })
  ids.staffOwn = await vote(people.staff.token, 'question_votes', { object_id: ids.publicOnly, value: 2, private: true })
  await vote(people.open.token, 'question_votes', { object_id: ids.publicOnly, value: 4, private: false })
  ids.secretChoice = await vote(people.secret.token, 'question_choice_votes', { object_id: ids.choice, value: 5, private: true })
  ids.secretTagVote = await vote(people.secret.token, 'question_tag_votes', { object_id: ids.questionTag, value: 2, private: true })
  for (const [i, person] of crowd.entries())
    await vote(person.token, 'question_votes', { object_id: ids.crowded, value: 1 + (i % 5), private: i !== 0 })
})
after(() => t.close())

test("staff reading a listing with someone's private answer: the answer is shown and one row names it", async () => {
  const before = await logSize()
  const url = `/api/question_votes/?question=${ids.likert}`
  const listing = (await t.get(url, as('staff'))).json()
  // As documented: staff see every vote.
  assert.deepEqual(listing.results.map((item: { id: number }) => item.id).sort(), [ids.secretVote, ids.openVote].sort())
  const after = await log()
  assert.equal(after.count, before + 1)
  const entry = after.results[0]
  assert.deepEqual(Object.keys(entry).sort(), ['authors', 'choice_votes', 'id', 'method', 'path', 'question_votes', 'read_at', 'staff'])
  assert.equal(entry.staff, people.staff.id)
  assert.match(entry.read_at, TIMESTAMP)
  assert.equal(entry.method, 'GET')
  assert.equal(entry.path, url)
  assert.deepEqual(entry.question_votes, [ids.secretVote])
  assert.deepEqual(entry.choice_votes, [])
  assert.deepEqual(entry.authors, [people.secret.id])
})

test('every listing and detail showing private votes is logged, under both names', async () => {
  const cases: [string, (entry: Record<string, number[]>) => void][] = [
    [`/api/question_votes_light/?user=${people.secret.id}`, (e) => assert.deepEqual(e.question_votes, [ids.secretVote])],
    [`/api/question_votes/${ids.secretVote}/`, (e) => assert.deepEqual(e.question_votes, [ids.secretVote])],
    [`/api/question_votes_light/${ids.secretVote}/`, (e) => assert.deepEqual(e.question_votes, [ids.secretVote])],
    [`/api/question_choice_votes/?question=${ids.mcq}`, (e) => assert.deepEqual(e.choice_votes, [ids.secretChoice])],
    [`/api/question_choice_votes_light/?choice=${ids.choice}`, (e) => assert.deepEqual(e.choice_votes, [ids.secretChoice])],
    [`/api/question_choice_votes/${ids.secretChoice}/`, (e) => assert.deepEqual(e.choice_votes, [ids.secretChoice])],
    [`/api/question_choice_votes_light/${ids.secretChoice}/`, (e) => assert.deepEqual(e.choice_votes, [ids.secretChoice])],
    [`/api/question_tag_votes/?question=${ids.likert}`, (e) => assert.deepEqual([e.question_votes, e.choice_votes], [[], []])],
    [`/api/question_tag_votes/${ids.secretTagVote}/`, (e) => assert.deepEqual([e.question_votes, e.choice_votes], [[], []])],
  ]
  for (const [url, check] of cases) {
    const shown = await t.get(url, as('other_staff'))
    assert.equal(shown.statusCode, 200, `${url}: ${shown.body}`)
    const entries = (await log(`?staff=${people.other_staff.id}&page_size=1`)).results
    assert.equal(entries[0].path, url)
    assert.deepEqual(entries[0].authors, [people.secret.id], url)
    check(entries[0])
  }
  // A staff edit answers with the vote: a read too.
  const edit = await t.send('PATCH', `/api/question_votes/${ids.secretVote}/`, { importance: 3 }, people.other_staff.token)
  assert.equal(edit.statusCode, 200, edit.body)
  const [entry] = (await log(`?staff=${people.other_staff.id}&page_size=1`)).results
  assert.equal(entry.method, 'PATCH')
  assert.deepEqual(entry.question_votes, [ids.secretVote])
})

test('reading only public answers, or only staff’s own private ones, writes nothing; nor does anyone else reading', async () => {
  const before = await logSize()
  for (const url of [
    `/api/question_votes/?question=${ids.publicOnly}`,
    `/api/question_votes/${ids.openVote}/`,
    `/api/question_votes/${ids.staffOwn}/`,
    `/api/question_votes/?question=${ids.crowded}&user=${crowd[0].id}`,
  ])
    assert.equal((await t.get(url, as('staff'))).statusCode, 200, url)
  // Others never see the private answer, so there is nothing to log.
  const stranger = (await t.get(`/api/question_votes/?question=${ids.likert}`, as('stranger'))).json()
  assert.deepEqual(
    stranger.results.map((item: { id: number }) => item.id),
    [ids.openVote],
  )
  await t.get(`/api/question_votes/?question=${ids.likert}`)
  // The voter reading their own private answer is not logged either.
  await t.get(`/api/question_votes/${ids.secretVote}/`, as('secret'))
  assert.equal(await logSize(), before)
})

test('one INSERT per request, whatever the number of private answers on the page', async () => {
  const before = await logSize()
  const many = await t.get(`/api/question_votes/?question=${ids.crowded}&page_size=20`, as('staff'))
  const one = await t.get(`/api/question_votes/?question=${ids.crowded}&page_size=1&ordering=-id`, as('staff'))
  assert.equal(many.json().results.length, 12)
  assert.equal(Number(many.headers['x-query-count']), Number(one.headers['x-query-count']))
  const after = await log()
  assert.equal(after.count, before + 2)
  const entries = after.results
  const authors = crowd.slice(1).map((person) => person.id)
  assert.deepEqual(entries[1].authors, authors)
  assert.equal(entries[1].question_votes.length, 11)
  assert.equal(entries[0].question_votes.length, 1)
})

test('the log: newest first, filtered by staff member and by author; bad filters name their field', async () => {
  const all = await log('?page_size=100')
  const times = all.results.map((entry: { read_at: string }) => entry.read_at)
  assert.deepEqual(times, [...times].sort().reverse())
  const byAuthor = await log(`?author=${crowd[3].id}&page_size=100`)
  assert.ok(byAuthor.count >= 1)
  for (const entry of byAuthor.results) assert.ok(entry.authors.includes(crowd[3].id))
  assert.ok(byAuthor.count < all.count)
  const byStaff = await log(`?staff=${people.other_staff.id}&page_size=100`)
  assert.ok(byStaff.count >= 1)
  for (const entry of byStaff.results) assert.equal(entry.staff, people.other_staff.id)
  assert.equal((await log(`?author=${people.open.id}`)).count, 0)
  const bad = await t.get('/api/private_answer_reads/?author=abc', as('staff'))
  assert.equal(bad.statusCode, 400)
  assert.ok('author' in bad.json(), bad.body)
})

test('nobody but staff can list the log', async () => {
  for (const who of ['stranger', 'secret']) {
    const refused = await t.get('/api/private_answer_reads/', as(who))
    assert.equal(refused.statusCode, 403, who)
    assert.deepEqual(refused.json(), { detail: 'You do not have permission to perform this action.' })
  }
  const anonymous = await t.get('/api/private_answer_reads/')
  assert.equal(anonymous.statusCode, 403)
  assert.deepEqual(anonymous.json(), { detail: 'Authentication credentials were not provided.' })
})
