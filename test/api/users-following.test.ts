import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'

let t: TestApp
const ids: Record<string, number> = {}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['star', 'fan', 'friend', 'stranger', 'gone']) ids[name] = (await insertUser(db)).id
  await db.updateTable('users').set({ is_active: false }).where('id', '=', ids.gone).execute()
  // fan and friend follow star; star follows friend; the deactivated account follows star too.
  await db
    .insertInto('following_users')
    .values([
      { user_id: ids.fan, following_id: ids.star },
      { user_id: ids.friend, following_id: ids.star },
      { user_id: ids.star, following_id: ids.friend },
      { user_id: ids.gone, following_id: ids.star },
    ])
    .execute()
})
after(() => t.close())

const listed = async (query: string) => {
  const response = await t.get(`/api/users/?${query}`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json().results.map((user: any) => user.id)
}

test('following=<id>: the people who follow that user, as listed anywhere (deactivated accounts left out)', async () => {
  assert.deepEqual(await listed(`following=${ids.star}`), [ids.fan, ids.friend])
  assert.deepEqual(await listed(`following=${ids.friend}`), [ids.star])
  assert.deepEqual(await listed(`following=${ids.stranger}`), [])
  assert.deepEqual(await listed(`following=${ids.star}&id=${ids.friend}`), [ids.friend], 'combined with the other filters')
  assert.deepEqual(await listed(`following=${ids.star}&ordering=-id`), [ids.friend, ids.fan])
  const page = await t.json(`/api/user_politician/?following=${ids.star}`)
  assert.equal(page.count, 2, 'user_politician is the same listing')
})

test('an unknown user follows nobody; a value that is no id is refused as the other id filters refuse it', async () => {
  assert.deepEqual(await listed('following=2147483647'), [])
  const all = (await t.json('/api/users/?page_size=1')).count
  assert.equal((await t.json('/api/users/?following=&page_size=1')).count, all, 'sent empty, no filter')
  for (const [value, message] of [
    ['abc', 'Enter a whole number.'],
    ['1.5', 'Enter a whole number.'],
    ['-1', 'Ensure this value is greater than or equal to 0.'],
    ['2147483648', 'Ensure this value is less than or equal to 2147483647.'],
  ]) {
    const response = await t.get(`/api/users/?following=${value}`)
    assert.equal(response.statusCode, 400, value)
    assert.deepEqual(response.json(), { following: [message] })
    const geo = await t.get(`/api/users/?locations__geo=${value}`)
    assert.deepEqual([geo.statusCode, Object.values(geo.json())], [400, [[message]]], `locations__geo=${value} answers the same`)
  }
})
