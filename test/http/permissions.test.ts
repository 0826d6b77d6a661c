import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { walkAccess, type Cell } from '../helpers/access-walk.ts'
import { allOwnedObjects, type OwnedObjects } from '../helpers/owned/index.ts'

/** docs/permissions.md is the contract: its table must equal what the routes declare, and hold in practice. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

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
  const { failures } = await walkAccess(t, OWNED, () => true)
  assert.deepEqual(failures, [])
})
