import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Insertable } from 'kysely'
import type { Politicians } from '../../src/db/database.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { assertPoliticianShape } from '../helpers/shapes.ts'

/**
 * Areas: country C > region R > district D, and region R2 under C. Politicians (sort names in brackets):
 *   pc  at C  (Carter, Cy)   party Blue   linked to account uc
 *   pr  at R  (Reed, Ria)    party Red    linked to ur, type mp
 *   pd1 at D  (Dale, Dan)    party Blue   linked to ud1
 *   pd2 at D  (Dunn, Dee)    party Green  no account
 *   pr2 at R2 (Rowe, Rex)    party Red    linked to a deactivated account (shown as no account)
 *   pn  no area (Nash, Ned)  party Green
 */
let t: TestApp
const area: Record<string, number> = {}
const pol: Record<string, number> = {}
const user: Record<string, { id: number; token: string }> = {}
const q: Record<string, number> = {}
const choice: Record<string, number> = {}
const prefix = `pol${process.pid}`

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  const insertArea = async (name: string, m_type: string, parent: string | null) =>
    (
      await db
        .insertInto('areas')
        .values({ code: `${prefix}-${name}`, name: `Area ${name}`, m_type, parent_id: parent === null ? null : area[parent] })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  area.C = await insertArea('C', 'country', null)
  area.R = await insertArea('R', 'region', 'C')
  area.D = await insertArea('D', 'district', 'R')
  area.R2 = await insertArea('R2', 'region', 'C')
  const insertPolitician = async (values: Insertable<Politicians>) =>
    (await db.insertInto('politicians').values(values).returning('id').executeTakeFirstOrThrow()).id
  const at = (name: string) => ({ area_id: area[name], area_name: `Area ${name}` })
  pol.pc = await insertPolitician({ name: 'Cy Carter', sort_name: 'Carter, Cy', party: 'Blue', party_id: 'b', ...at('C') })
  pol.pr = await insertPolitician({ name: 'Ria Reed', sort_name: 'Reed, Ria', party: 'Red', party_id: 'r', type: 'mp', ...at('R') })
  pol.pd1 = await insertPolitician({ name: 'Dan Dale', sort_name: 'Dale, Dan', party: 'Blue', party_id: 'b', ...at('D') })
  pol.pd2 = await insertPolitician({ name: 'Dee Dunn', sort_name: 'Dunn, Dee', party: 'Green', party_id: 'g', ...at('D') })
  pol.pr2 = await insertPolitician({ name: 'Rex Rowe', sort_name: 'Rowe, Rex', party: 'Red', party_id: 'r', ...at('R2') })
  pol.pn = await insertPolitician({ name: 'Ned Nash', sort_name: 'Nash, Ned', party: 'Green', party_id: 'g' })

  const person = async (name: string, values: Parameters<typeof insertUser>[1] = {}) => {
    const row = await insertUser(db, { username: `${prefix}_${name}`, ...values })
    user[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  await person('u', { country_id: area.C, district_id: area.D })
  await person('v')
  await db.insertInto('user_geos').values({ user_id: user.v.id, area_id: area.R2 }).execute()
  await person('staff', { is_staff: true })
  await person('author')
  await person('uc', { politician_id: pol.pc })
  await person('ur', { politician_id: pol.pr })
  await person('ud1', { politician_id: pol.pd1 })
  await person('ur2', { politician_id: pol.pr2, is_active: false })

  for (const name of ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7']) q[name] = (await insertQuestion(db, user.author.id)).id
  q.m1 = (await insertQuestion(db, user.author.id, { subtype: 'mcq' })).id
  q.draft = (await insertQuestion(db, user.author.id, { publish: false })).id
  for (const [name, n] of [
    ['x1', 1],
    ['x2', 2],
  ] as const) {
    choice[name] = (
      await db
        .insertInto('question_choices')
        .values({ question_id: q.m1, text: `Choice ${name}`, store_number: n })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  }
  const likert = (who: string, question: string, value: number | null, isPrivate = false) =>
    db
      .insertInto('question_votes')
      .values({ user_id: user[who].id, question_id: q[question], value, skipped: value === null, private: isPrivate })
      .execute()
  const pick = (who: string, picked: string) =>
    db
      .insertInto('question_choice_votes')
      .values({ user_id: user[who].id, question_id: q.m1, choice_id: choice[picked], value: 5 })
      .execute()
  // The person u.
  for (const [name, value] of [
    ['q1', 1],
    ['q2', 2],
    ['q3', 3],
    ['q4', 4],
    ['q5', 5],
    ['draft', 1],
  ] as const)
    await likert('u', name, value)
  await likert('u', 'q6', 3, true)
  await likert('u', 'q7', null)
  await pick('u', 'x1')
  // ud1 agrees closely; its private answer on q5 counts (a politician's answers are public by nature).
  for (const [name, value] of [
    ['q1', 1],
    ['q2', 2],
    ['q3', 3],
    ['q4', 4],
    ['q6', 3],
    ['q7', 2],
  ] as const)
    await likert('ud1', name, value)
  await likert('ud1', 'q5', 4, true)
  await pick('ud1', 'x1')
  // ur disagrees: q1 4, q2 2, q3 0, q4 3, q5 0, m1 4, draft 4.
  for (const [name, value] of [
    ['q1', 5],
    ['q2', 4],
    ['q3', 3],
    ['q4', 1],
    ['q5', 5],
    ['draft', 5],
  ] as const)
    await likert('ur', name, value)
  await pick('ur', 'x2')
  // uc has three questions in common: too few for a percent.
  for (const [name, value] of [
    ['q1', 1],
    ['q2', 2],
    ['q3', 5],
  ] as const)
    await likert('uc', name, value)
  // The deactivated account's answers never count.
  for (const name of ['q1', 'q2', 'q3', 'q4', 'q5']) await likert('ur2', name, 3)
})
after(() => t.close())

const mine = () => `area__in=${['C', 'R', 'D', 'R2'].map((n) => area[n]).join(',')}`
const ids = (body: { results: { id: number }[] }) => body.results.map((item) => item.id)
const auth = (name: string) => ({ authorization: `Token ${user[name].token}` })

describe('politician listing and detail', () => {
  test('spec 2.4 objects in a DRF page, by sort_name', async () => {
    const body = await t.json(`/api/politician/?${mine()}`)
    assert.equal(body.count, 5)
    assert.deepEqual(Object.keys(body).sort(), ['count', 'next', 'next_id', 'previous', 'previous_id', 'results'])
    assert.deepEqual(ids(body), [pol.pc, pol.pd1, pol.pd2, pol.pr, pol.pr2])
    for (const item of body.results) assertPoliticianShape(item)
    const first = body.results[0]
    assert.deepEqual(
      Object.keys(first).sort(),
      [
        'ID',
        'area',
        'area_id',
        'chamber',
        'country',
        'cv',
        'email',
        'end_date',
        'fundraising_page',
        'gender',
        'group',
        'group_id',
        'id',
        'image',
        'name',
        'social1',
        'social1_page',
        'social3',
        'social4',
        'sort_name',
        'start_date',
        'statement',
        'term',
        'type',
      ].sort(),
    )
    assert.equal(first.group, 'Blue')
    assert.equal(first.group_id, 'b')
    assert.equal(first.area_id, String(area.C))
    assert.equal(first.area, 'Area C')
    assert.equal(first.type, 'candidate')
    const all = await t.json('/api/politician/?page_size=100')
    assert.equal(all.count, 6 + 6, 'the six seeded and the six of this file')
  })

  test('the detail is the listed object, and users show the same as politician_info', async () => {
    const listed = (await t.json(`/api/politician/?area=${area.R}`)).results[0]
    const detail = await t.json(`/api/politician/${pol.pr}/`)
    assert.deepEqual(detail, listed)
    const linked = await t.json(`/api/users/${user.ur.id}/`)
    assert.deepEqual(linked.politician_info, detail)
  })

  test('filters: area, area__in, party or group, group_id, type, search; ordering', async () => {
    const cases: [string, number[]][] = [
      [`area=${area.D}`, [pol.pd1, pol.pd2]],
      [`area__in=${area.D},${area.R2}`, [pol.pd1, pol.pd2, pol.pr2]],
      [`${mine()}&party=Red`, [pol.pr, pol.pr2]],
      [`${mine()}&group=Red`, [pol.pr, pol.pr2]],
      [`${mine()}&group=red`, []],
      [`${mine()}&group_id=b`, [pol.pc, pol.pd1]],
      [`${mine()}&party_id=g`, [pol.pd2]],
      [`${mine()}&type=mp`, [pol.pr]],
      ['search=ned+nash', [pol.pn]],
      ['area__in=&search=ned+nash', [pol.pn]],
      ['search=nash,ned', [pol.pn]],
      [`${mine()}&search=d`, [pol.pd1, pol.pd2, pol.pr]],
      [`${mine()}&search=d&ordering=-name`, [pol.pr, pol.pd2, pol.pd1]],
      [`${mine()}&ordering=group,-sort_name`, [pol.pd1, pol.pc, pol.pd2, pol.pr2, pol.pr]],
      [`${mine()}&ordering=nonsense`, [pol.pc, pol.pd1, pol.pd2, pol.pr, pol.pr2]],
    ]
    for (const [query, expected] of cases) {
      const body = await t.json(`/api/politician/?${query}`)
      assert.deepEqual(ids(body), expected, query)
      assert.equal(body.count, expected.length, query)
    }
  })

  test('pages repeat the filters; the statements do not grow with the page', async () => {
    const first = await t.json(`/api/politician/?${mine()}&page_size=2`)
    assert.equal(first.next, `http://localhost:80/api/politician/?area__in=${encodeURIComponent(mine().slice(9))}&page=2&page_size=2`)
    assert.equal(first.next_id, 2)
    const small = await t.get('/api/politician/?page_size=1')
    const large = await t.get('/api/politician/?page_size=100')
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
    assert.ok(Number(large.headers['x-query-count']) <= 2, `statements: ${large.headers['x-query-count']}`)
    const simpleSmall = await t.get('/api/simple_politicians/?page_size=1')
    const simpleLarge = await t.get('/api/simple_politicians/?page_size=100')
    assert.equal(simpleSmall.headers['x-query-count'], simpleLarge.headers['x-query-count'])
    assert.ok(Number(simpleLarge.headers['x-query-count']) <= 2)
  })

  test('bad input: 400 naming the filter, 404 on an unknown id or page; nothing else', async () => {
    const cases: [string, number, unknown][] = [
      ['/api/politician/?area=999999', 400, { area: ['Select a valid choice. That choice is not one of the available choices.'] }],
      ['/api/politician/?area=abc', 400, { area: ['Enter a whole number.'] }],
      ['/api/politician/?area=99999999999', 400, { area: ['Ensure this value is less than or equal to 2147483647.'] }],
      [
        `/api/politician/?area__in=${area.C},999999`,
        400,
        { area__in: ['Select a valid choice. 999999 is not one of the available choices.'] },
      ],
      ['/api/politician/?area__in=1,x', 400, { area__in: ['Enter a whole number.'] }],
      ['/api/politician/?match=999999', 400, { match: ['Select a valid choice. That choice is not one of the available choices.'] }],
      ['/api/politician/?match=-1', 400, { match: ['Ensure this value is greater than or equal to 0.'] }],
      [
        `/api/politician/?match=${user.ur2.id}`,
        400,
        { match: ['Select a valid choice. That choice is not one of the available choices.'] },
      ],
      ['/api/simple_politicians/?area=999999', 400, { area: ['Select a valid choice. That choice is not one of the available choices.'] }],
      ['/api/politician/999999/', 404, { detail: 'Not found.' }],
      ['/api/politician/abc/', 404, { detail: 'Not found.' }],
      ['/api/simple_politicians/999999/', 404, { detail: 'Not found.' }],
      ['/api/politician/?page=99', 404, { detail: 'Invalid page.' }],
      [`/api/politician/?match=${user.u.id}&page=99`, 404, { detail: 'Invalid page.' }],
    ]
    for (const [url, status, body] of cases) {
      const response = await t.get(url)
      assert.equal(response.statusCode, status, `${url}: ${response.body}`)
      assert.deepEqual(response.json(), body, url)
    }
  })

  test('read-only: writes answer 405', async () => {
    const response = await t.send('POST', '/api/politician/', { name: 'X' }, user.staff.token)
    assert.equal(response.statusCode, 405)
    assert.equal((await t.send('DELETE', `/api/politician/${pol.pc}/`, undefined, user.staff.token)).statusCode, 405)
  })
})

describe('simple_politicians', () => {
  test('the light form with the linked account (a deactivated one is none)', async () => {
    const body = await t.json(`/api/simple_politicians/?${mine()}`)
    assert.deepEqual(ids(body), [pol.pc, pol.pd1, pol.pd2, pol.pr, pol.pr2])
    assert.deepEqual(body.results[0], {
      id: pol.pc,
      name: 'Cy Carter',
      sort_name: 'Carter, Cy',
      group: 'Blue',
      area_id: String(area.C),
      area: 'Area C',
      image: null,
      type: 'candidate',
      user: user.uc.id,
    })
    assert.deepEqual(
      body.results.map((item: { user: number | null }) => item.user),
      [user.uc.id, user.ud1.id, null, user.ur.id, null],
    )
    const detail = await t.json(`/api/simple_politicians/${pol.pn}/`)
    assert.deepEqual(detail, {
      id: pol.pn,
      name: 'Ned Nash',
      sort_name: 'Nash, Ned',
      group: 'Green',
      area_id: '',
      area: '',
      image: null,
      type: 'candidate',
      user: null,
    })
    assert.deepEqual(ids(await t.json(`/api/simple_politicians/?${mine()}&party=Green`)), [pol.pd2])
  })
})

describe('simple_politicians_geos', () => {
  test('the politicians of an area and the areas above it, nearest first', async () => {
    const cases: [string, number[]][] = [
      [`geo=${area.D}`, [pol.pd1, pol.pd2, pol.pr, pol.pc]],
      [`geo=${area.R2}`, [pol.pr2, pol.pc]],
      [`geo=${area.C}`, [pol.pc]],
      [`geo=${area.D}&party=Blue`, [pol.pd1, pol.pc]],
      [`geo=${area.D}&ordering=-level`, [pol.pc, pol.pr, pol.pd2, pol.pd1]],
      [`geo=${area.D}&ordering=name`, [pol.pc, pol.pd1, pol.pd2, pol.pr]],
    ]
    for (const [query, expected] of cases) {
      const body = await t.json(`/api/simple_politicians_geos/?${query}`)
      assert.deepEqual(ids(body), expected, query)
      assert.equal(body.count, expected.length)
    }
    const body = await t.json(`/api/simple_politicians_geos/?geo=${area.D}`)
    assert.deepEqual(Object.keys(body.results[0]).sort(), ['area', 'area_id', 'group', 'id', 'image', 'name', 'sort_name', 'type', 'user'])
  })

  test('geo is required and must name an area', async () => {
    const cases: [string, unknown][] = [
      ['', { geo: ['This field is required.'] }],
      ['geo=999999', { geo: ['Select a valid choice. That choice is not one of the available choices.'] }],
      ['geo=x', { geo: ['Enter a whole number.'] }],
      [`geo=${area.D}&area=999999`, { area: ['Select a valid choice. That choice is not one of the available choices.'] }],
    ]
    for (const [query, expected] of cases) {
      const response = await t.get(`/api/simple_politicians_geos/?${query}`)
      assert.equal(response.statusCode, 400, query)
      assert.deepEqual(response.json(), expected, query)
    }
  })

  test('a cycle of parents ends', async () => {
    const db = t.database.db
    const a = await db
      .insertInto('areas')
      .values({ code: `${prefix}-A`, name: 'A', m_type: 'x' })
      .returning('id')
      .executeTakeFirstOrThrow()
    const b = await db
      .insertInto('areas')
      .values({ code: `${prefix}-B`, name: 'B', m_type: 'x', parent_id: a.id })
      .returning('id')
      .executeTakeFirstOrThrow()
    await db.updateTable('areas').set({ parent_id: b.id }).where('id', '=', a.id).execute()
    const body = await t.json(`/api/simple_politicians_geos/?geo=${a.id}`)
    assert.equal(body.count, 0)
  })
})

describe('matching a user with politicians', () => {
  // Anonymous: pd1 d=[5,1,0,0,0] (6 questions); pr d=[2,0,1,1,3] (7, the draft counts); pc 3 questions; pd2 no account.
  const pd1Anonymous = (100 * 1) / (4 * 6)
  const prPercent = (100 * (2 * 1 + 3 * 1 + 4 * 3)) / (4 * 7)

  test("the user's areas and those above, most agreement first, nulls last", async () => {
    const response = await t.get(`/api/politician/?match=${user.u.id}`)
    assert.equal(response.statusCode, 200, response.body)
    const body = response.json()
    assert.equal(body.count, 4)
    assert.deepEqual(ids(body), [pol.pd1, pol.pr, pol.pc, pol.pd2])
    const figures = body.results.map((item: Record<string, unknown>) => [
      item.user,
      item.difference_percent,
      item.questions_counted,
      item.difference_distances,
    ])
    assert.deepEqual(figures, [
      [user.ud1.id, pd1Anonymous, 6, [5, 1, 0, 0, 0]],
      [user.ur.id, prPercent, 7, [2, 0, 1, 1, 3]],
      [user.uc.id, null, 3, [2, 0, 1, 0, 0]],
      [null, null, 0, [0, 0, 0, 0, 0]],
    ])
    for (const item of body.results) assertPoliticianShape(item)
    assert.equal(body.results[0].name, 'Dan Dale')
  })

  test('the questions that separate them most, with both answers (drafts counted, not shown)', async () => {
    const body = await t.json(`/api/politician/?match=${user.u.id}`)
    const [pd1, pr, pc, pd2] = body.results
    assert.deepEqual(pd1.most_different, [])
    assert.deepEqual(pc.most_different, [
      {
        question: q.q3,
        text: pc.most_different[0].text,
        subtype: 'likert',
        distance: 2,
        user: { value: 3, choice: null, choice_text: null },
        politician: { value: 5, choice: null, choice_text: null },
      },
    ])
    assert.deepEqual(pd2.most_different, [])
    assert.deepEqual(
      pr.most_different.map((item: { question: number; distance: number }) => [item.question, item.distance]),
      [
        [q.q1, 4],
        [q.m1, 4],
        [q.q4, 3],
      ],
    )
    assert.deepEqual(pr.most_different[0].user, { value: 1, choice: null, choice_text: null })
    assert.deepEqual(pr.most_different[0].politician, { value: 5, choice: null, choice_text: null })
    assert.deepEqual(pr.most_different[1].user, { value: null, choice: choice.x1, choice_text: 'Choice x1' })
    assert.deepEqual(pr.most_different[1].politician, { value: null, choice: choice.x2, choice_text: 'Choice x2' })
    assert.equal(pr.most_different[1].subtype, 'mcq')
    // Staff may see the draft: it separates them by 4 and has the highest id of the three.
    const asStaff = await t.json(`/api/politician/?match=${user.u.id}`, auth('staff'))
    const prStaff = asStaff.results.find((item: { id: number }) => item.id === pol.pr)
    assert.deepEqual(
      prStaff.most_different.map((item: { question: number }) => item.question),
      [q.q1, q.m1, q.draft],
    )
  })

  test("the user's private answers count when the user asks", async () => {
    const body = await t.json(`/api/politician/?match=${user.u.id}`, auth('u'))
    const pd1 = body.results[0]
    assert.equal(pd1.id, pol.pd1)
    assert.equal(pd1.questions_counted, 7)
    assert.deepEqual(pd1.difference_distances, [6, 1, 0, 0, 0])
    assert.equal(pd1.difference_percent, (100 * 1) / (4 * 7))
    const other = await t.json(`/api/politician/?match=${user.u.id}`, auth('v'))
    assert.equal(other.results[0].questions_counted, 6)
  })

  test('user_geos areas count; filters narrow; pages; statements do not grow with the page', async () => {
    assert.deepEqual(ids(await t.json(`/api/politician/?match=${user.v.id}`)), [pol.pc, pol.pr2])
    assert.deepEqual(ids(await t.json(`/api/politician/?match=${user.u.id}&type=mp`)), [pol.pr])
    assert.deepEqual(ids(await t.json(`/api/politician/?match=${user.u.id}&party=Blue`)), [pol.pd1, pol.pc])
    assert.deepEqual(ids(await t.json(`/api/politician/?match=${user.staff.id}`)), [], 'no areas, no politicians')
    const second = await t.json(`/api/politician/?match=${user.u.id}&page_size=1&page=2`)
    assert.deepEqual(ids(second), [pol.pr])
    assert.equal(second.count, 4)
    assert.equal(second.previous_id, 1)
    assert.equal(second.next_id, 3)
    const small = await t.get(`/api/politician/?match=${user.u.id}&page_size=1`)
    const large = await t.get(`/api/politician/?match=${user.u.id}&page_size=100`)
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
    assert.ok(Number(large.headers['x-query-count']) <= 5, `statements: ${large.headers['x-query-count']}`)
  })

  test('a politician matched with its own account is not compared with itself', async () => {
    const db = t.database.db
    await db.updateTable('users').set({ district_id: area.D }).where('id', '=', user.ud1.id).execute()
    const body = await t.json(`/api/politician/?match=${user.ud1.id}`)
    const self = body.results.find((item: { id: number }) => item.id === pol.pd1)
    assert.equal(self.difference_percent, null)
    assert.equal(self.questions_counted, 0)
  })
})
