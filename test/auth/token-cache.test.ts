import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'

/**
 * Sign-in tokens kept in memory (TOKEN_CACHE_ENTRIES, src/access/credentials-cache.ts): a signed-in request runs no
 * statement for its caller once the token is kept, and every change that refuses a token (sign-out, revocation, a
 * deleted or deactivated account, staff rights withdrawn) holds at once through the API, and within a notice's delay
 * when made in SQL by anyone else.
 */

let t: TestApp
before(async () => {
  t = await createTestApp('tiny', { TOKEN_CACHE_ENTRIES: '1000' })
})
after(() => t.close())

const me = (token: string) => t.get('/auth/me/', { authorization: `Token ${token}` })
const queries = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-query-count'])

/** Polls until the request answers the status (notices arrive a moment after the commit). */
async function answersSoon(request: () => Promise<{ statusCode: number }>, status: number, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  let last = 0
  while (Date.now() < deadline) {
    last = (await request()).statusCode
    if (last === status) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.fail(`${what}: answered ${last}, not ${status}`)
}

test('a kept token costs no statement, and the caller is the same', async () => {
  const user = await insertUser(t.database.db)
  const token = await t.tokenFor(user.id)
  const first = await me(token)
  assert.equal(first.statusCode, 200)
  const second = await me(token)
  assert.equal(second.statusCode, 200)
  assert.deepEqual(second.json(), first.json())
  // The first looked the token up (and marked it used); the second found it kept.
  assert.ok(queries(second) < queries(first), `${queries(second)} statements after ${queries(first)}`)
})

test('ten requests at once with a token not yet kept look it up once', async () => {
  const [first, kept] = [await insertUser(t.database.db), await insertUser(t.database.db)]
  // What a lone first request costs, and one once the token is kept.
  const alone = await t.tokenFor(first.id)
  const firstCost = queries(await me(alone))
  const keptCost = queries(await me(alone))
  const token = await t.tokenFor(kept.id)
  const together = await Promise.all(Array.from({ length: 10 }, () => me(token)))
  for (const response of together) assert.equal(response.json().id, kept.id)
  const spent = together.reduce((sum, response) => sum + queries(response), 0)
  assert.equal(spent, firstCost + 9 * keptCost, `${together.map(queries)}: one lookup for all`)
})

test('signing out refuses the token at once; a wrong token is never kept as good', async () => {
  const user = await insertUser(t.database.db)
  const token = await t.tokenFor(user.id)
  assert.equal((await me(token)).statusCode, 200)
  assert.equal((await t.send('POST', '/auth/logout/', {}, token)).statusCode, 200)
  await answersSoon(() => me(token), 401, 'the signed-out token')
  assert.equal((await me(`${token}x`)).statusCode, 401)
})

test('changes made in SQL by anyone else: revoked, deactivated, deleted, staff withdrawn', async () => {
  const db = t.database.db
  const revoked = await insertUser(db)
  const revokedToken = await t.tokenFor(revoked.id)
  const inactive = await insertUser(db)
  const inactiveToken = await t.tokenFor(inactive.id)
  const gone = await insertUser(db)
  const goneToken = await t.tokenFor(gone.id)
  const staff = await insertUser(db, { is_staff: true })
  const staffToken = await t.tokenFor(staff.id)
  for (const token of [revokedToken, inactiveToken, goneToken, staffToken]) assert.equal((await me(token)).statusCode, 200)
  const staffOnly = () => t.get('/api/email_team/', { authorization: `Token ${staffToken}` })
  assert.equal((await staffOnly()).statusCode, 200)

  await db.updateTable('auth_tokens').set({ revoked_at: new Date() }).where('user_id', '=', revoked.id).execute()
  await db.updateTable('users').set({ is_active: false }).where('id', '=', inactive.id).execute()
  await db.updateTable('users').set({ is_deleted: true }).where('id', '=', gone.id).execute()
  await db.updateTable('users').set({ is_staff: false }).where('id', '=', staff.id).execute()
  await answersSoon(() => me(revokedToken), 401, 'a revoked token')
  await answersSoon(() => me(inactiveToken), 401, 'a deactivated account')
  await answersSoon(() => me(goneToken), 401, 'a deleted account')
  await answersSoon(staffOnly, 403, 'staff rights withdrawn')
})
