import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

test('a census record has every field of spec 2.11, age_0 to age_90 adding up to all_ages', async () => {
  const body = await t.json('/api/census_data/')
  assert.ok(body.count >= 13)
  for (const record of body.results) {
    assert.match(record.url, /\/api\/census_data\/\d+\/$/)
    for (const field of ['code', 'name']) assert.equal(typeof record[field], 'string')
    assert.ok(record.date === null || /^\d{4}-\d\d-\d\d$/.test(record.date))
    assert.ok(record.geo === null || Number.isInteger(record.geo))
    let sum = 0
    for (let age = 0; age <= 90; age++) {
      assert.ok(Number.isInteger(record[`age_${age}`]), `age_${age}`)
      sum += record[`age_${age}`]
    }
    assert.equal(record.age_91, undefined)
    assert.equal(sum, record.all_ages)
  }
})

test('filtered by geo, as the web app asks for its region', async () => {
  const region = (await t.json('/api/geos/?m_type=region')).results[0]
  const body = await t.json(`/api/census_data/?geo=${region.id}`)
  assert.equal(body.count, 1)
  assert.equal(body.results[0].geo, region.id)
  assert.equal(body.results[0].code, region.ID)
  assert.deepEqual((await t.json('/api/census_data/?geo=999999')).results, [])
})

test('area 59 is the UK, the census fallback the web app asks for', async () => {
  const body = await t.json('/api/census_data/?geo=59')
  assert.equal(body.count, 1)
  assert.equal(body.results[0].code, 'GB')
  assert.equal((await t.json('/api/geos/59/')).ID, 'GB')
})

test('ordering by any age_<N>, both ways; an age out of range is ignored', async () => {
  const up = (await t.json('/api/census_data/?ordering=age_30&page_size=100')).results.map((r: any) => r.age_30)
  assert.deepEqual(
    up,
    [...up].sort((a, b) => a - b),
  )
  const down = (await t.json('/api/census_data/?ordering=-age_90&page_size=100')).results.map((r: any) => r.age_90)
  assert.deepEqual(
    down,
    [...down].sort((a, b) => b - a),
  )
  assert.equal((await t.get('/api/census_data/?ordering=age_91')).statusCode, 200)
})

test('read-only: writes answer 405 and Allow says so', async () => {
  const response = await t.request({ method: 'POST', url: '/api/census_data/', payload: {} })
  assert.equal(response.statusCode, 405)
  assert.equal(response.headers.allow, 'GET, HEAD, OPTIONS')
})
