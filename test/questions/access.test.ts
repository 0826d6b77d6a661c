import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { walkAccess } from '../helpers/access-walk.ts'
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
  const { failures } = await walkAccess(t, owned, (path) => path in EXPECTED)
  assert.deepEqual(failures, [])
})
