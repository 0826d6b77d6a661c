import { hashSecret } from '../../src/core/secrets.ts'
import { hashPassword } from '../../src/modules/accounts/passwords.ts'
import type { TestApp } from '../helpers/app.ts'
import type { RouteSpec } from './routes.ts'
import type { Pools } from './schema-values.ts'

const PASSWORD = 'fuzz-Password-7319'

interface Account {
  id: number
  token: string
}

/**
 * The people the fuzz signs in as: one ordinary user and one staff member of the tiny seed, both with a known
 * password. A case may sign them out, deactivate or delete them; `refresh` then finds a replacement, so
 * later cases still reach past authentication.
 */
export async function prepareFixtures(t: TestApp, routes: RouteSpec[]) {
  const db = t.database.db
  const passwordHash = await hashPassword(PASSWORD)

  async function signIn(staff: boolean, avoid: number[]): Promise<Account> {
    const user = await db
      .selectFrom('users')
      .select('id')
      .where('is_active', '=', true)
      .where('is_deleted', '=', false)
      .where('is_staff', '=', staff)
      .$if(avoid.length > 0, (q) => q.where('id', 'not in', avoid))
      .orderBy('id')
      .executeTakeFirst()
    // No staff left: make the first ordinary user staff (the fuzz deletes accounts when it guesses a password).
    const id = user?.id ?? (await signIn(false, avoid)).id
    await db.updateTable('users').set({ password_hash: passwordHash, is_staff: staff }).where('id', '=', id).execute()
    return { id, token: await t.tokenFor(id) }
  }

  let staff = await signIn(true, [])
  let user = await signIn(false, [staff.id])

  async function valid(account: Account, staffRole: boolean): Promise<boolean> {
    const row = await db
      .selectFrom('auth_tokens')
      .innerJoin('users', 'users.id', 'auth_tokens.user_id')
      .select(['auth_tokens.revoked_at', 'users.is_active', 'users.is_deleted', 'users.is_staff'])
      .where('auth_tokens.key_hash', '=', hashSecret(account.token))
      .executeTakeFirst()
    return !!row && !row.revoked_at && row.is_active && !row.is_deleted && row.is_staff === staffRole
  }

  const users = await db.selectFrom('users').select(['username', 'email']).orderBy('id').limit(20).execute()
  const pools: Pools = {
    ids: Array.from({ length: 60 }, (_, i) => i + 1),
    usernames: users.map((row) => row.username),
    emails: users.map((row) => row.email).filter((email): email is string => !!email),
    password: PASSWORD,
    deviceIds: ['fuzzdevice0001', 'fuzzdevice0002', 'f'.repeat(160)],
  }

  // Ids that exist behind each listing, read through the API itself, for the routes under it.
  const idsByPrefix = new Map<string, number[]>()
  for (const route of routes) {
    const prefix = route.url.split(':')[0]
    if (!route.url.includes(':') || idsByPrefix.has(prefix)) continue
    const response = await t.get(`${prefix}?page_size=100`, { authorization: `Token ${staff.token}` })
    let ids: number[] = []
    if (response.statusCode === 200) {
      const body = response.json() as { results?: unknown[] } | unknown[]
      const rows = Array.isArray(body) ? body : Array.isArray(body.results) ? body.results : []
      ids = rows.map((row) => (row as { id?: unknown }).id).filter((id): id is number => typeof id === 'number')
    }
    idsByPrefix.set(prefix, ids)
    for (const id of ids) if (!pools.ids.includes(id)) pools.ids.push(id)
  }

  return {
    pools,
    tokens: () => ({ user: user.token, staff: staff.token }),
    realIds: (route: RouteSpec) => idsByPrefix.get(route.url.split(':')[0]) ?? [],
    /** After a write was accepted: replaces a signed-out, deactivated, deleted or demoted account. */
    async refresh(): Promise<void> {
      if (!(await valid(staff, true))) staff = await signIn(true, [user.id])
      if (!(await valid(user, false))) user = await signIn(false, [staff.id])
    },
  }
}

export type Fixtures = Awaited<ReturnType<typeof prepareFixtures>>
