import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { allOwnedObjects, type OwnedObjects } from '../helpers/owned/index.ts'

/** docs/permissions.md is the contract: its table must equal what the routes declare, and hold in practice. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
type Cell = 'anyone' | 'signed-in' | 'owner' | 'staff'

function documentedTable(): Map<string, Map<string, Cell>> {
  const text = readFileSync(new URL('../../docs/permissions.md', import.meta.url), 'utf8')
  const lines = text.split('\n')
  const header = lines.findIndex((line) => /^\|\s*path\s*\|\s*GET\s*\|\s*POST\s*\|\s*PUT\s*\|\s*PATCH\s*\|\s*DELETE\s*\|/.test(line))
  assert.ok(header >= 0, 'docs/permissions.md has the access table')
  const table = new Map<string, Map<string, Cell>>()
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim().replace(/`/g, ''))
    const row = new Map<string, Cell>()
    METHODS.forEach((method, index) => {
      const cell = cells[index + 1]
      if (cell && cell !== '—') row.set(method, cell as Cell)
    })
    for (const path of cells[0].split(',').map((part) => part.trim())) table.set(path, row)
  }
  return table
}

let t: TestApp
let OWNED: OwnedObjects
before(async () => {
  t = await createTestApp('tiny')
  OWNED = await allOwnedObjects()
})
after(() => t.close())

test('the documented access table is exactly what the routes declare', () => {
  const declared = t.app.accessTable()
  const documented = documentedTable()
  const render = (table: Map<string, Map<string, Cell>>) =>
    [...table].map(([path, row]) => `${path} ${METHODS.map((m) => `${m}=${row.get(m) ?? '—'}`).join(' ')}`).sort()
  assert.deepEqual(render(documented), render(declared))
})

test('every cell holds for a caller without credentials, a stranger, the owner and staff', async () => {
  const db = t.database.db
  const failures: string[] = []
  for (const [path, row] of t.app.accessTable()) {
    for (const [method, access] of row) {
      // Fresh users for each cell: some operations sign out or delete their caller.
      const owner = await insertUser(db)
      const stranger = await insertUser(db)
      const staff = await insertUser(db, { is_staff: true })
      const params = OWNED[path] ? await OWNED[path](db, owner.id) : {}
      if (access === 'owner') assert.ok(OWNED[path], `a fixture owns an object of ${path}`)
      const url = path.replace(/:(\w+)/g, (_match, name: string) => params[name] ?? '1')
      const expectations: [string, number | null, Cell[]][] = [
        ['nobody', null, ['anyone']],
        ['stranger', stranger.id, ['anyone', 'signed-in']],
        ['owner', owner.id, ['anyone', 'signed-in', 'owner']],
        ['staff', staff.id, ['anyone', 'signed-in', 'owner', 'staff']],
      ]
      for (const [who, userId, allowedFor] of expectations) {
        const headers: Record<string, string> = { 'content-type': 'application/json' }
        if (userId !== null) headers.authorization = `Token ${await t.tokenFor(userId)}`
        const response = await t.request({
          method: method as 'GET',
          url,
          headers,
          payload: method === 'GET' || method === 'DELETE' ? undefined : '{}',
        })
        const allowed = allowedFor.includes(access)
        const refused = response.statusCode === 403 || response.statusCode === 401
        if (allowed === refused || response.statusCode >= 500) {
          failures.push(`${method} ${url} (${access}) as ${who}: ${response.statusCode} ${response.body.slice(0, 120)}`)
        }
      }
    }
  }
  assert.deepEqual(failures, [])
})
