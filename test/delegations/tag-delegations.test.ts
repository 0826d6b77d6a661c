import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const tags: Record<string, number> = {}
const auth = (name: string) => ({ authorization: `Token ${users[name].token}` })
const post = (body: unknown, name = 'alice') => t.send('POST', '/api/tag_delegations/', body, users[name].token)
const patch = (id: number, body: unknown, name = 'alice') => t.send('PATCH', `/api/tag_delegations/${id}/`, body, users[name].token)
const remove = (id: number, name = 'alice') => t.send('DELETE', `/api/tag_delegations/${id}/`, undefined, users[name].token)
const reorder = (order: unknown, name = 'alice') => t.send('POST', '/api/tag_delegations/reorder/', { order }, users[name].token)
const form = (method: 'POST' | 'PATCH', url: string, payload: string, name = 'alice') =>
  t.request({ method, url, headers: { ...auth(name), 'content-type': 'application/x-www-form-urlencoded' }, payload })
const list = async (query = '', name = 'alice') => (await t.json(`/api/tag_delegations/?page_size=100&${query}`, auth(name))).results
/** Every stored tag delegation, to show that a refused request changed nothing. */
const allRows = () => t.database.db.selectFrom('tag_delegations').selectAll().orderBy('id').execute()

async function assertRefused(response: { statusCode: number; json(): any; body: string }, field: string, message?: string) {
  assert.equal(response.statusCode, 400, response.body)
  const body = response.json()
  assert.ok(field in body, `the 400 names ${field}: ${response.body}`)
  if (message) assert.deepEqual(body[field], [message])
}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'stranger']) {
    const row = await insertUser(db, { username: `td_${name}` })
    users[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const staff = await insertUser(db, { username: 'td_staff', is_staff: true })
  users.staff = { id: staff.id, token: await t.tokenFor(staff.id) }
  users.inactive = { id: (await insertUser(db, { username: 'td_inactive', is_active: false })).id, token: '' }
  users.deleted = { id: (await insertUser(db, { username: 'td_deleted', is_deleted: true })).id, token: '' }
  for (const name of ['rivers', 'bridges', 'canals', 'roads', 'ports']) tags[name] = (await insertTag(db, `TD ${name}`)).id
})
after(() => t.close())

describe('creating tag delegations', () => {
  test('POST {tag, trustee}: 201 with the item; priority 0 for the first', async () => {
    const response = await post({ tag: tags.rivers, trustee: users.bob.id })
    assert.equal(response.statusCode, 201, response.body)
    const item = response.json()
    assert.deepEqual(Object.keys(item).sort(), [
      'active',
      'created_at',
      'id',
      'priority',
      'revoked_at',
      'tag',
      'tag_info',
      'trustee',
      'trustee_info',
      'url',
      'user',
    ])
    assert.equal(item.url, `http://localhost:80/api/tag_delegations/${item.id}/`)
    assert.equal(response.headers.location, item.url)
    assert.equal(item.user, users.alice.id)
    assert.equal(item.tag, tags.rivers)
    assert.deepEqual(item.tag_info, { id: tags.rivers, text: 'TD rivers' })
    assert.equal(item.trustee, users.bob.id)
    assert.equal(item.trustee_info.id, users.bob.id)
    assert.equal(item.trustee_info.username, 'td_bob')
    assert.match(item.trustee_info.url, /\/api\/users\/\d+\/$/)
    assert.ok(!('email' in item.trustee_info), 'the reduced user carries no e-mail')
    assert.ok(!('follow' in item.trustee_info) && !('country' in item.trustee_info), 'the reduced form')
    assert.equal(item.priority, 0)
    assert.equal(item.active, true)
    assert.equal(item.revoked_at, null)
    assert.match(item.created_at, TIMESTAMP)
  })

  test('a new one without priority goes last; a block has no trustee', async () => {
    const second = await post({ tag: tags.bridges, trustee: users.carol.id })
    assert.equal(second.statusCode, 201, second.body)
    assert.equal(second.json().priority, 1)
    const block = await post({ tag: tags.canals, trustee: null })
    assert.equal(block.statusCode, 201, block.body)
    assert.equal(block.json().trustee, null)
    assert.equal(block.json().trustee_info, null)
    assert.equal(block.json().priority, 2)
    const given = await post({ tag: tags.roads, trustee: users.dave.id, priority: 7 })
    assert.equal(given.json().priority, 7)
    assert.equal((await post({ tag: tags.ports, trustee: users.dave.id })).json().priority, 8)
  })

  test('POST on a tag with an active delegation replaces it: the old one is revoked, the new keeps its priority', async () => {
    const [old] = await list(`tag=${tags.bridges}`)
    const response = await post({ tag: tags.bridges, trustee: users.dave.id })
    assert.equal(response.statusCode, 201, response.body)
    const item = response.json()
    assert.notEqual(item.id, old.id)
    assert.equal(item.priority, old.priority)
    assert.equal(item.trustee, users.dave.id)
    const history = await list(`tag=${tags.bridges}&history=1`)
    assert.deepEqual(
      history.map((d: any) => [d.id, d.active]).sort(),
      [
        [old.id, false],
        [item.id, true],
      ].sort(),
    )
    const revoked = history.find((d: any) => d.id === old.id)
    assert.match(revoked.revoked_at, TIMESTAMP)
    assert.equal(revoked.trustee, users.carol.id)
    // With a priority given, the replacement takes it.
    const again = await post({ tag: tags.bridges, trustee: users.carol.id, priority: 5 })
    assert.equal(again.json().priority, 5)
    assert.equal((await list(`tag=${tags.bridges}`)).length, 1)
    assert.equal((await list(`tag=${tags.bridges}&history=1`)).length, 3)
  })

  test('refusals name the field and change nothing', async () => {
    const before = await allRows()
    const cases: [unknown, string, string?][] = [
      [{ tag: 999999, trustee: users.bob.id }, 'tag', 'Invalid pk "999999" - object does not exist.'],
      [{ tag: tags.rivers, trustee: 999999 }, 'trustee', 'Invalid pk "999999" - object does not exist.'],
      [{ tag: tags.rivers, trustee: users.inactive.id }, 'trustee', `Invalid pk "${users.inactive.id}" - object does not exist.`],
      [{ tag: tags.rivers, trustee: users.deleted.id }, 'trustee', `Invalid pk "${users.deleted.id}" - object does not exist.`],
      [{ tag: tags.rivers, trustee: users.alice.id }, 'trustee', 'You cannot delegate to yourself.'],
      [{ tag: 'abc', trustee: users.bob.id }, 'tag', 'Incorrect type. Expected pk value, received str.'],
      [{ tag: true, trustee: users.bob.id }, 'tag', 'Incorrect type. Expected pk value, received bool.'],
      [{ tag: 0, trustee: users.bob.id }, 'tag', 'Invalid pk "0" - object does not exist.'],
      [{ tag: tags.rivers, trustee: true }, 'trustee', 'Incorrect type. Expected pk value, received bool.'],
      [{ tag: tags.rivers, trustee: false }, 'trustee', 'Incorrect type. Expected pk value, received bool.'],
      [{ tag: tags.rivers, trustee: 0 }, 'trustee', 'Invalid pk "0" - object does not exist.'],
      [{ tag: tags.rivers, trustee: '0' }, 'trustee', 'Invalid pk "0" - object does not exist.'],
      [{ tag: tags.rivers, trustee: -4 }, 'trustee', 'Invalid pk "-4" - object does not exist.'],
      [{ tag: tags.rivers, trustee: 99999999999 }, 'trustee', 'Invalid pk "99999999999" - object does not exist.'],
      [{ tag: tags.rivers, trustee: { id: users.bob.id } }, 'trustee', 'Incorrect type. Expected pk value, received dict.'],
      [{ tag: tags.rivers, trustee: [users.bob.id] }, 'trustee', 'Incorrect type. Expected pk value, received list.'],
      [{ tag: tags.rivers, trustee: 1.5 }, 'trustee', 'Incorrect type. Expected pk value, received float.'],
      [{ tag: null, trustee: users.bob.id }, 'tag', 'This field may not be null.'],
      [{ tag: tags.rivers, trustee: users.bob.id, priority: -1 }, 'priority'],
      [{ tag: tags.rivers, trustee: users.bob.id, priority: 'first' }, 'priority', 'A valid integer is required.'],
      [{ tag: tags.rivers, trustee: users.bob.id, priority: true }, 'priority', 'A valid integer is required.'],
      [{ tag: tags.rivers, trustee: users.bob.id, priority: null }, 'priority', 'This field may not be null.'],
      [{ trustee: users.bob.id }, 'tag', 'This field is required.'],
      [{ tag: tags.rivers }, 'trustee', 'This field is required.'],
      [[1, 2], 'non_field_errors'],
      ['tag', 'non_field_errors'],
    ]
    for (const [body, field, message] of cases) await assertRefused(await post(body), field, message)
    // Both fields at fault are named at once.
    const both = await post({ tag: 999999, trustee: users.alice.id })
    assert.deepEqual(both.json(), { tag: ['Invalid pk "999999" - object does not exist.'], trustee: ['You cannot delegate to yourself.'] })
    const malformed = await t.request({
      method: 'POST',
      url: '/api/tag_delegations/',
      headers: { ...auth('alice'), 'content-type': 'application/json' },
      payload: '{"tag": ',
    })
    assert.equal(malformed.statusCode, 400)
    assert.match(malformed.json().detail, /^JSON parse error/)
    assert.deepEqual(await allRows(), before)
  })

  test('form-encoded bodies: ids as text, an empty trustee is a block', async () => {
    const response = await form('POST', '/api/tag_delegations/', `tag=${tags.canals}&trustee=${users.erin.id}`)
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().trustee, users.erin.id)
    assert.equal(response.json().priority, 2, 'it replaced the block on canals and kept its priority')
    const block = await form('POST', '/api/tag_delegations/', `tag=${tags.canals}&trustee=`)
    assert.equal(block.statusCode, 201, block.body)
    assert.equal(block.json().trustee, null)
    await assertRefused(await form('POST', '/api/tag_delegations/', `tag=${tags.canals}&trustee=someone`), 'trustee')
  })

  test('without credentials: 403', async () => {
    assert.equal((await t.send('POST', '/api/tag_delegations/', { tag: tags.rivers, trustee: users.bob.id })).statusCode, 403)
    assert.equal((await t.get('/api/tag_delegations/')).statusCode, 403)
  })
})

describe('listing tag delegations', () => {
  before(async () => {
    // Someone else's delegations, which alice never sees.
    await post({ tag: tags.rivers, trustee: users.carol.id }, 'frank')
    await post({ tag: tags.roads, trustee: users.bob.id }, 'frank')
  })

  test('only the caller’s own, active ones by default, ordered by priority then id', async () => {
    const items = await list()
    assert.ok(items.every((d: any) => d.user === users.alice.id && d.active))
    assert.deepEqual(
      items.map((d: any) => d.tag),
      [tags.rivers, tags.canals, tags.bridges, tags.roads, tags.ports],
    )
    assert.deepEqual(
      items.map((d: any) => d.priority),
      [0, 2, 5, 7, 8],
    )
    const page = await t.json('/api/tag_delegations/', auth('alice'))
    assert.deepEqual(Object.keys(page).sort(), ['count', 'next', 'next_id', 'previous', 'previous_id', 'results'])
    assert.equal(page.count, 5)
    // Staff list their own too.
    assert.deepEqual(await list('', 'staff'), [])
  })

  test('history=1 includes revoked ones; filters tag and trustee', async () => {
    const history = await list('history=1')
    assert.equal(history.length, 5 + 2 + 2, 'two replaced on bridges and two on canals')
    assert.equal(history.filter((d: any) => !d.active).length, 4)
    assert.ok(history.filter((d: any) => !d.active).every((d: any) => d.revoked_at !== null))
    assert.deepEqual(
      (await list(`tag=${tags.roads}`)).map((d: any) => d.trustee),
      [users.dave.id],
    )
    assert.deepEqual(
      (await list(`trustee=${users.dave.id}`)).map((d: any) => d.tag),
      [tags.roads, tags.ports],
    )
    assert.deepEqual(
      (await list(`trustee=${users.dave.id}&history=1`)).map((d: any) => d.tag).sort(),
      [tags.bridges, tags.roads, tags.ports].sort(),
    )
    assert.equal((await list('history=0')).length, 5)
  })

  test('ordering by created_at, tag and -priority', async () => {
    const byCreated = await list('ordering=created_at')
    const stamps = byCreated.map((d: any) => d.created_at)
    assert.deepEqual(stamps, [...stamps].sort())
    assert.deepEqual(
      (await list('ordering=tag')).map((d: any) => d.tag),
      Object.values(tags).sort((a, b) => a - b),
    )
    assert.deepEqual(
      (await list('ordering=-priority')).map((d: any) => d.priority),
      [8, 7, 5, 2, 0],
    )
    assert.deepEqual(
      (await list('ordering=nonsense')).map((d: any) => d.priority),
      [0, 2, 5, 7, 8],
    )
  })

  test('the number of statements does not grow with the page size', async () => {
    const db = t.database.db
    const many = await insertUser(db, { username: 'td_many' })
    const token = await t.tokenFor(many.id)
    for (let i = 0; i < 14; i++) {
      const tag = await insertTag(db, `TD many ${i}`)
      const trustee = i % 3 === 0 ? null : [users.bob.id, users.carol.id, users.dave.id, users.erin.id][i % 4]
      const response = await t.send('POST', '/api/tag_delegations/', { tag: tag.id, trustee }, token)
      assert.equal(response.statusCode, 201, response.body)
    }
    const small = await t.get('/api/tag_delegations/?page_size=2&ordering=-id', { authorization: `Token ${token}` })
    const large = await t.get('/api/tag_delegations/?page_size=50', { authorization: `Token ${token}` })
    assert.equal(small.json().results.length, 2)
    assert.equal(large.json().results.length, 14)
    assert.ok(small.json().results.some((d: any) => d.trustee !== null))
    assert.ok(Number(small.headers['x-query-count']) > 0, 'the app counts statements')
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })
})

describe('one tag delegation', () => {
  test('GET: the delegating user and staff; others get 404', async () => {
    const [first] = await list(`tag=${tags.rivers}`)
    assert.equal((await t.json(`/api/tag_delegations/${first.id}/`, auth('alice'))).id, first.id)
    assert.equal((await t.json(`/api/tag_delegations/${first.id}/`, auth('staff'))).user, users.alice.id)
    assert.equal((await t.get(`/api/tag_delegations/${first.id}/`, auth('stranger'))).statusCode, 404)
    assert.equal((await t.get(`/api/tag_delegations/${first.id}/`, auth('bob'))).statusCode, 404, 'not even the trustee')
    assert.equal((await t.get(`/api/tag_delegations/${first.id}/`)).statusCode, 403)
    assert.equal((await t.get('/api/tag_delegations/999999/', auth('alice'))).statusCode, 404)
    assert.equal((await t.get('/api/tag_delegations/abc/', auth('alice'))).statusCode, 404)
    const put = await t.send('PUT', `/api/tag_delegations/${first.id}/`, { priority: 1 }, users.alice.token)
    assert.equal(put.statusCode, 405)
    assert.equal(put.headers.allow, 'GET, PATCH, DELETE, HEAD, OPTIONS')
    const options = await t.request({ method: 'OPTIONS', url: '/api/tag_delegations/', headers: auth('alice') })
    assert.equal(options.json().name, 'Tag Delegation List')
    assert.deepEqual(Object.keys(options.json().actions.POST).sort(), ['priority', 'tag', 'trustee'])
  })

  test('PATCH {priority}: in place', async () => {
    const [first] = await list(`tag=${tags.rivers}`)
    const response = await patch(first.id, { priority: 3 })
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.json().id, first.id)
    assert.equal(response.json().priority, 3)
    assert.equal((await list(`tag=${tags.rivers}&history=1`)).length, 1)
    // Nothing new: the row as it is.
    const same = await patch(first.id, { trustee: first.trustee, priority: 3 })
    assert.equal(same.statusCode, 200)
    assert.equal(same.json().id, first.id)
    assert.equal((await patch(first.id, {})).json().id, first.id)
  })

  test('PATCH {trustee}: the row is revoked and a new one answers, keeping the priority', async () => {
    const [first] = await list(`tag=${tags.rivers}`)
    const response = await patch(first.id, { trustee: users.erin.id })
    assert.equal(response.statusCode, 200, response.body)
    const replacement = response.json()
    assert.notEqual(replacement.id, first.id)
    assert.equal(replacement.trustee, users.erin.id)
    assert.equal(replacement.priority, 3)
    const old = await t.json(`/api/tag_delegations/${first.id}/`, auth('alice'))
    assert.equal(old.active, false)
    assert.match(old.revoked_at, TIMESTAMP)
    assert.equal(old.trustee, users.bob.id)
    // A new trustee and a priority together; then a block.
    const both = await patch(replacement.id, { trustee: users.bob.id, priority: 0 })
    assert.equal(both.json().priority, 0)
    const block = await patch(both.json().id, { trustee: null })
    assert.equal(block.statusCode, 200)
    assert.equal(block.json().trustee, null)
    assert.equal(block.json().priority, 0)
    const back = await form('PATCH', `/api/tag_delegations/${block.json().id}/`, `trustee=${users.bob.id}`)
    assert.equal(back.statusCode, 200, back.body)
    assert.equal(back.json().trustee, users.bob.id)
    assert.deepEqual(
      (await list(`tag=${tags.rivers}&history=1&ordering=id`)).map((d: any) => d.active),
      [false, false, false, false, true],
    )
  })

  test('PATCH refusals change nothing; others may not; staff may, for the delegating user', async () => {
    const [current] = await list(`tag=${tags.rivers}`)
    const before = await allRows()
    await assertRefused(await patch(current.id, { trustee: users.alice.id }), 'trustee', 'You cannot delegate to yourself.')
    await assertRefused(await patch(current.id, { trustee: 999999 }), 'trustee', 'Invalid pk "999999" - object does not exist.')
    await assertRefused(await patch(current.id, { trustee: users.inactive.id }), 'trustee')
    await assertRefused(await patch(current.id, { trustee: 'bob' }), 'trustee')
    await assertRefused(await patch(current.id, { priority: -3 }), 'priority')
    await assertRefused(await patch(current.id, { priority: null }), 'priority')
    await assertRefused(await patch(current.id, { trustee: users.alice.id }, 'staff'), 'trustee', 'You cannot delegate to yourself.')
    assert.equal((await patch(current.id, { priority: 1 }, 'stranger')).statusCode, 403)
    assert.equal((await patch(current.id, { priority: 1 }, 'bob')).statusCode, 403)
    assert.deepEqual(await allRows(), before)
    const byStaff = await patch(current.id, { trustee: users.carol.id }, 'staff')
    assert.equal(byStaff.statusCode, 200, byStaff.body)
    assert.equal(byStaff.json().user, users.alice.id)
    assert.equal(byStaff.json().trustee, users.carol.id)
  })

  test('DELETE revokes (204); a revoked row cannot be patched or revoked again', async () => {
    const [current] = await list(`tag=${tags.ports}`)
    assert.equal((await remove(current.id, 'stranger')).statusCode, 403)
    const response = await remove(current.id)
    assert.equal(response.statusCode, 204)
    assert.equal(response.body, '')
    const revoked = await t.json(`/api/tag_delegations/${current.id}/`, auth('alice'))
    assert.equal(revoked.active, false)
    assert.match(revoked.revoked_at, TIMESTAMP)
    assert.deepEqual(await list(`tag=${tags.ports}`), [])
    assert.equal((await list(`tag=${tags.ports}&history=1`)).length, 1)
    const before = await allRows()
    await assertRefused(await remove(current.id), 'non_field_errors')
    await assertRefused(await patch(current.id, { priority: 1 }), 'non_field_errors')
    await assertRefused(await patch(current.id, { trustee: users.bob.id }), 'non_field_errors')
    await assertRefused(await patch(current.id, {}), 'non_field_errors')
    assert.deepEqual(await allRows(), before)
    assert.equal((await remove(999999)).statusCode, 404)
  })
})

describe('reordering', () => {
  const priorities = async () => (await list('ordering=id')).map((d: any) => [d.id, d.priority])

  test('sets priorities 0..n-1 in the order given and answers the list in that order', async () => {
    const current = await list()
    const order = current.map((d: any) => d.id).reverse()
    const response = await reorder(order)
    assert.equal(response.statusCode, 200, response.body)
    const results = response.json().results
    assert.deepEqual(
      results.map((d: any) => d.id),
      order,
    )
    assert.deepEqual(
      results.map((d: any) => d.priority),
      order.map((_: number, i: number) => i),
    )
    assert.deepEqual(
      (await list()).map((d: any) => d.id),
      order,
    )
    // History is not touched: the same rows, still active.
    assert.ok(results.every((d: any) => d.active))
  })

  test('all or nothing: any mistake is a 400 on order and no priority moves', async () => {
    const current = (await list()).map((d: any) => d.id)
    const before = await priorities()
    const [revoked] = (await list('history=1')).filter((d: any) => !d.active)
    const [franks] = await list('', 'frank')
    const cases: unknown[] = [
      current.slice(1), // one missing
      [...current, current[0]], // one twice
      [...current, 999999], // unknown
      [...current.slice(1), franks.id], // someone else's
      [...current, revoked.id], // revoked
      [], // none
      'all',
      null,
      { 0: current[0] },
      [...current.slice(1), true],
      [...current.slice(1), 'x'],
    ]
    for (const order of cases) await assertRefused(await reorder(order), 'order')
    assert.deepEqual((await reorder(current.slice(1))).json(), {
      order: [`Every active tag delegation must be listed; missing: ${current[0]}.`],
    })
    assert.deepEqual((await reorder([...current, current[0]])).json(), { order: [`Delegation ${current[0]} is listed more than once.`] })
    assert.deepEqual((await reorder([...current.slice(1), franks.id])).json(), {
      order: [
        `Invalid pk "${franks.id}" - not one of your active tag delegations.`,
        `Every active tag delegation must be listed; missing: ${current[0]}.`,
      ],
    })
    assert.deepEqual((await reorder('all')).json(), { order: ['Expected a list of items but got type "str".'] })
    assert.deepEqual((await reorder([...current.slice(1), true])).json(), { order: ['A valid integer is required.'] })
    await assertRefused(await t.send('POST', '/api/tag_delegations/reorder/', {}, users.alice.token), 'order', 'This field is required.')
    assert.deepEqual(await priorities(), before)
  })

  test('form-encoded: the field repeated', async () => {
    const current = (await list()).map((d: any) => d.id)
    const order = [current[1], current[0], ...current.slice(2)]
    const response = await form('POST', '/api/tag_delegations/reorder/', order.map((id: number) => `order=${id}`).join('&'))
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(
      response.json().results.map((d: any) => d.id),
      order,
    )
  })

  test('with no active delegations, an empty order is fine', async () => {
    const response = await reorder([], 'stranger')
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(response.json(), { results: [] })
  })
})

describe('delegations to me', () => {
  test('counts per tag of active delegations by active accounts; never who', async () => {
    const db = t.database.db
    const trustee = await insertUser(db, { username: 'td_trusted' })
    const token = await t.tokenFor(trustee.id)
    const giver = async (name: string) => {
      const row = await insertUser(db, { username: `td_giver_${name}` })
      return { id: row.id, token: await t.tokenFor(row.id) }
    }
    const [g1, g2, g3, g4, g5] = await Promise.all(['1', '2', '3', '4', '5'].map(giver))
    const give = async (who: { token: string }, tag: number, to: number | null) => {
      const response = await t.send('POST', '/api/tag_delegations/', { tag, trustee: to }, who.token)
      assert.equal(response.statusCode, 201, response.body)
      return response.json()
    }
    await give(g1, tags.rivers, trustee.id)
    await give(g2, tags.rivers, trustee.id)
    await give(g3, tags.rivers, trustee.id)
    await give(g1, tags.bridges, trustee.id)
    const revoked = await give(g2, tags.bridges, trustee.id)
    assert.equal((await t.send('DELETE', `/api/tag_delegations/${revoked.id}/`, undefined, g2.token)).statusCode, 204)
    await give(g4, tags.bridges, trustee.id)
    await give(g4, tags.bridges, users.bob.id) // replaced: no longer to the trustee
    await give(g5, tags.canals, null)
    await db.updateTable('users').set({ is_active: false }).where('id', '=', g3.id).execute()
    const response = await t.json('/api/tag_delegations/to_me/', { authorization: `Token ${token}` })
    assert.deepEqual(response, {
      results: [
        { tag: tags.rivers, tag_info: { id: tags.rivers, text: 'TD rivers' }, count: 2 },
        { tag: tags.bridges, tag_info: { id: tags.bridges, text: 'TD bridges' }, count: 1 },
      ],
    })
    assert.deepEqual(await t.json('/api/tag_delegations/to_me/', auth('stranger')), { results: [] })
    assert.equal((await t.get('/api/tag_delegations/to_me/')).statusCode, 403)
  })
})
