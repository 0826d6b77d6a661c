import type { Kysely, Updateable } from 'kysely'
import type { Database, Users } from '../../db/database.ts'
import type { ViewContext } from '../../core/view-context.ts'
import { ValidationFailed, type FieldErrors, NotFound, invalidPk } from '../../core/errors.ts'
import { fullUsersFromRows } from '../users/users.service.ts'
import { accountsRepository } from './accounts.repository.ts'
import type { Me, ProfilePatch } from './accounts.schemas.ts'
import { dropFriendshipsOf } from '../friends/friends.service.ts'
import { verifyPassword } from './passwords.ts'
import { tokensRepository } from './tokens.repository.ts'

/** The signed-in user's own view: the public full user plus private profile fields. */
export async function loadMe(context: ViewContext, userId: number): Promise<Me> {
  const row = await accountsRepository(context.db).findById(userId)
  if (!row) throw NotFound()
  const full = (await fullUsersFromRows(context, [row])).get(row.id)!
  return {
    ...full,
    email: row.email,
    dob: row.dob,
    gender: row.gender,
    address: row.address,
    location: row.longitude === null || row.latitude === null ? null : { type: 'Point', coordinates: [row.longitude, row.latitude] },
    district: row.district_id,
    default_private: row.default_private,
    defHideAnswers: row.default_private,
    phone: row.phone,
    is_phone_verified: row.is_phone_verified,
    agreed_terms: row.agreed_terms,
    is_staff: row.is_staff,
    has_password: row.password_hash !== null,
  }
}

/** A calendar date from `1990-1-5` or `1990-01-05`, not in the future and not before 1900. */
export function dateOfBirth(value: string | null | undefined, errors: FieldErrors): string | null | undefined {
  if (value === undefined || value === null) return value
  const [year, month, day] = value.split('-').map(Number)
  const date = new Date(Date.UTC(year, month - 1, day))
  const valid = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  if (!valid) {
    errors.dob = ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.']
    return undefined
  }
  if (year < 1900 || date.getTime() > Date.now()) {
    errors.dob = ['Enter a date of birth between 1900 and today.']
    return undefined
  }
  return date.toISOString().slice(0, 10)
}

/**
 * The user columns a profile body sets, checked against the database (unique names, known areas);
 * all problems are reported together, as DRF does.
 */
export async function profileValues(db: Kysely<Database>, userId: number, body: ProfilePatch): Promise<Updateable<Users>> {
  const repository = accountsRepository(db)
  const errors: FieldErrors = {}
  const values: Updateable<Users> = {}
  for (const field of ['first_name', 'last_name', 'bio', 'address', 'gender'] as const) {
    if (body[field] !== undefined) (values as Record<string, unknown>)[field] = body[field]
  }
  if (body.username !== undefined) {
    if (await repository.usernameTaken(body.username, userId)) errors.username = ['A user with that username already exists.']
    else values.username = body.username
  }
  if (body.email !== undefined) {
    const email = body.email.trim()
    if (await repository.emailTaken(email, userId)) errors.email = ['A user with that email address already exists.']
    else values.email = email
  }
  if (body.photo !== undefined) values.photo = body.photo || null
  const dob = dateOfBirth(body.dob, errors)
  if (dob !== undefined) values.dob = dob
  const privacy = body.default_private ?? body.defHideAnswers
  if (privacy !== undefined) values.default_private = privacy
  if (body.location !== undefined) {
    values.longitude = body.location?.coordinates[0] ?? null
    values.latitude = body.location?.coordinates[1] ?? null
    if (body.location) Object.assign(values, await repository.place(body.location.coordinates[0], body.location.coordinates[1]))
  }
  const areaIds = [body.country, body.region].filter((id): id is number => typeof id === 'number')
  const areas = await repository.areaTypes(areaIds)
  if (body.country !== undefined) {
    if (body.country !== null && areas.get(body.country)?.m_type !== 'country') errors.country = [invalidPk(body.country)]
    else values.country_id = body.country
  }
  if (body.region !== undefined) {
    const region = body.region === null ? null : areas.get(body.region)
    if (body.region !== null && region?.m_type !== 'region') errors.region = [invalidPk(body.region)]
    else {
      values.region_id = body.region
      if (region?.parent_id && body.country === undefined) values.country_id = region.parent_id
    }
  }
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return values
}

/** The caller's password, checked; an account without one (social or generated) passes with none. */
export async function confirmPassword(db: Kysely<Database>, userId: number, password: string | undefined, field: string) {
  const user = await accountsRepository(db).findById(userId)
  if (!user) throw ValidationFailed({ [field]: ['Invalid password.'] })
  if (user.password_hash === null) return user
  if (password === undefined) throw ValidationFailed({ [field]: ['This field is required.'] })
  const check = await verifyPassword(password, user.password_hash)
  if (!check.valid) throw ValidationFailed({ [field]: ['Invalid password.'] })
  return user
}

/** Anonymises the account for good (answers stay), with its friendships and sign-ins, in one transaction. */
export async function deleteAccount(db: Kysely<Database>, userId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await dropFriendshipsOf(trx, userId)
    await accountsRepository(trx).anonymise(userId)
    await tokensRepository(trx).revokeAllOf(userId)
  })
}
