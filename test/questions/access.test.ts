import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { owned } from '../helpers/owned/questions.ts'

/** The access rules of questions and what hangs off them, declared and walked as in docs/permissions.md. */
const EXPECTED: Record<string, string> = {
  '/api/questions/': 'GET=anyone POST=signed-in',
  '/api/questions/:id/': 'GET=anyone PUT=owner PATCH=owner DELETE=owner',
  '/api/questions/:id/friends_answers/': 'GET=signed-in',
  '/api/question_choices/': 'GET=anyone POST=signed-in',
  '/api/question_choices/:id/': 'GET=anyone PUT=owner PATCH=owner DELETE=owner',
  '/api/question_links/': 'GET=anyone POST=signed-in',
  '/api/question_links/:id/': 'GET=anyone PUT=owner PATCH=owner DELETE=owner',
  '/api/question_tags/': 'GET=anyone POST=signed-in',
  '/api/question_tags/:id/': 'GET=anyone DELETE=owner',
  '/api/question_question_connections/': 'GET=anyone POST=signed-in',
  '/api/question_question_connections/:id/': 'GET=anyone DELETE=owner',
  '/api/question_question_connection_votes/': 'GET=anyone POST=signed-in',
  '/api/question_question_connection_votes/:id/': 'GET=anyone DELETE=owner',
  '/api/question_link_votes/': 'GET=anyone POST=signed-in',
  '/api/question_link_votes/:id/': 'GET=anyone DELETE=owner',
}

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

const mine = () => [...t.app.accessTable()].filter(([path]) => path in EXPECTED)

test('the routes declare the documented rules', () => {
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
  const declared = Object.fromEntries(
    mine().map(([path, row]) => [
      path,
      methods
        .filter((m) => row.has(m))
        .map((m) => `${m}=${row.get(m)}`)
        .join(' '),
    ]),
  )
  assert.deepEqual(declared, EXPECTED)
})

test('every rule holds for nobody, a stranger, the owner and staff, and nothing answers 5xx to an empty body', async () => {
  const db = t.database.db
  const failures: string[] = []
  for (const [path, row] of mine()) {
    for (const [method, access] of row) {
      const owner = await insertUser(db)
      const stranger = await insertUser(db)
      const staff = await insertUser(db, { is_staff: true })
      const params = owned[path] ? await owned[path](db, owner.id) : {}
      if (access === 'owner') assert.ok(owned[path], `a fixture owns an object of ${path}`)
      const url = path.replace(/:(\w+)/g, (_match, name: string) => params[name] ?? '1')
      for (const [who, userId, allowedFor] of [
        ['nobody', null, ['anyone']],
        ['stranger', stranger.id, ['anyone', 'signed-in']],
        ['owner', owner.id, ['anyone', 'signed-in', 'owner']],
        ['staff', staff.id, ['anyone', 'signed-in', 'owner', 'staff']],
      ] as const) {
        const headers: Record<string, string> = { 'content-type': 'application/json' }
        if (userId !== null) headers.authorization = `Token ${await t.tokenFor(userId)}`
        const response = await t.request({
          method: method as 'GET',
          url,
          headers,
          payload: method === 'GET' || method === 'DELETE' ? undefined : '{}',
        })
        const allowed = (allowedFor as readonly string[]).includes(access)
        const refused = response.statusCode === 403 || response.statusCode === 401
        if (allowed === refused || response.statusCode >= 500)
          failures.push(`${method} ${url} (${access}) as ${who}: ${response.statusCode} ${response.body.slice(0, 120)}`)
      }
    }
  }
  assert.deepEqual(failures, [])
})
