import type { TestApp } from './app.ts'
import { insertUser } from './fixtures.ts'
import type { OwnedObjects } from './owned/index.ts'

export type Cell = 'anyone' | 'signed-in' | 'owner' | 'staff'

/**
 * Tries every declared method of the chosen URLs as a caller without credentials, a stranger, the owner and
 * staff, with an empty JSON body (test/http/permissions.test.ts walks them all). Answers what went wrong.
 */
export async function walkAccess(
  t: TestApp,
  owned: OwnedObjects,
  chosen: (path: string) => boolean,
): Promise<{ failures: string[]; cells: number }> {
  const db = t.database.db
  const failures: string[] = []
  let cells = 0
  for (const [path, row] of t.app.accessTable()) {
    if (!chosen(path)) continue
    for (const [method, access] of row) {
      cells += 1
      // Fresh users for each cell: some operations sign out or delete their caller.
      const owner = await insertUser(db)
      const stranger = await insertUser(db)
      const staff = await insertUser(db, { is_staff: true })
      if (access === 'owner' && !owned[path]) failures.push(`${path}: no fixture owns an object`)
      const params = owned[path] ? await owned[path](db, owner.id) : {}
      const url = path.replace(/:(\w+)/g, (_match, name: string) => params[name] ?? '1')
      const callers: [string, number | null, Cell[]][] = [
        ['nobody', null, ['anyone']],
        ['stranger', stranger.id, ['anyone', 'signed-in']],
        ['owner', owner.id, ['anyone', 'signed-in', 'owner']],
        ['staff', staff.id, ['anyone', 'signed-in', 'owner', 'staff']],
      ]
      for (const [who, userId, allowedFor] of callers) {
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
        if (allowed === refused || response.statusCode >= 500)
          failures.push(`${method} ${url} (${access}) as ${who}: ${response.statusCode} ${response.body.slice(0, 120)}`)
      }
    }
  }
  return { failures, cells }
}
