import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { owned } from '../helpers/owned/following.ts'
import { walkAccess } from '../helpers/access-walk.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

const FOLLOWING_PATHS = /^\/api\/(following_users\/|following_tags\/|tags\/:id\/(un)?follow\/)/

test('every following route refuses exactly whom its rule refuses, and never fails', async () => {
  const { failures, cells } = await walkAccess(t, owned, (path) => FOLLOWING_PATHS.test(path))
  assert.deepEqual(failures, [])
  assert.equal(cells, 10)
})
