import type { Kysely } from 'kysely'
import { Type, type Static } from 'typebox'
import type { Database } from '../../db/database.ts'
import { Url } from '../../http/schemas.ts'
import { photoUrl } from './users.mapper.ts'
import { usersRepository, type UserRow } from './users.repository.ts'
import type { ViewContext } from '../../core/view-context.ts'

/** Enough of a person to show them in a member list or a request queue. */
export const UserSummary = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  photo: Url,
})
export type UserSummary = Static<typeof UserSummary>

/** Summaries and e-mail addresses of these users, in one statement. */
export async function loadUserSummaries(context: ViewContext, ids: number[]): Promise<Map<number, UserSummary & { email: string | null }>> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return new Map()
  const rows = await usersRepository(context.db).summaryRows(unique)
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        username: row.username,
        first_name: row.first_name,
        last_name: row.last_name,
        photo: photoUrl(row as UserRow, context.urls, context.defaultAvatar),
        email: row.email,
      },
    ]),
  )
}

export function summaryOf(user: (UserSummary & { email: string | null }) | undefined): UserSummary | null {
  if (!user) return null
  const { email: _email, ...summary } = user
  return summary
}

/** Whether the id names someone who can take part: an active account that was not deleted. */
export async function activeUserExists(db: Kysely<Database>, id: number): Promise<boolean> {
  return usersRepository(db).activeExists(id)
}
