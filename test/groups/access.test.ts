import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { owned } from '../helpers/owned/groups.ts'
import { walkAccess } from '../helpers/access-walk.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

const GROUP_PATHS = /^\/api\/(groups|group_memberships|group_invites|group_join_requests|group_question_connections)\//

test('every group route refuses exactly whom its rule refuses, and never fails', async () => {
  const { failures, cells } = await walkAccess(t, owned, (path) => GROUP_PATHS.test(path))
  assert.deepEqual(failures, [])
  assert.equal(cells, 30)
})
