import { sql, type Insertable, type Kysely, type Updateable } from 'kysely'
import type { Database, Users } from '../../db/database.ts'
import { withEligibility } from '../../engines/liquid/liquid.accounts.ts'
import { selectFullUsers, type UserRow } from '../users/users.repository.ts'

/** Nearest region centre within this distance places a user in that region; otherwise the nearest country. */
const REGION_RADIUS_KM = 150

export interface Placement {
  country_id: number | null
  region_id: number | null
  district_id: number | null
}

export function accountsRepository(db: Kysely<Database>) {
  return {
    /** The account a sign-in name points at: a username first, else an e-mail address (both case-insensitive). */
    async findForLogin(identifier: string) {
      const name = identifier.trim().toLowerCase()
      const rows = await db
        .selectFrom('users')
        .select(['id', 'username', 'email', 'password_hash', 'is_active', 'is_deleted'])
        .where((eb) => eb.or([eb(sql`lower(username)`, '=', name), eb(sql`lower(email)`, '=', name)]))
        .execute()
      return rows.find((row) => row.username.toLowerCase() === name) ?? rows[0]
    },

    async findByEmail(email: string) {
      return db
        .selectFrom('users')
        .select(['id', 'username', 'email', 'is_active', 'is_deleted', 'is_email_verified'])
        .where(sql`lower(email)`, '=', email.trim().toLowerCase())
        .executeTakeFirst()
    },

    /** The user's row with their answer counts. */
    async findById(id: number): Promise<UserRow | undefined> {
      return selectFullUsers(db.selectFrom('users').where('users.id', '=', id)).executeTakeFirst()
    },

    async usernameTaken(username: string, exceptId = 0): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where(sql`lower(username)`, '=', username.toLowerCase())
        .where('id', '<>', exceptId)
        .executeTakeFirst()
      return row !== undefined
    },

    async emailTaken(email: string, exceptId = 0): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where(sql`lower(email)`, '=', email.trim().toLowerCase())
        .where('id', '<>', exceptId)
        .executeTakeFirst()
      return row !== undefined
    },

    async create(values: Insertable<Users>): Promise<number> {
      const row = await db.insertInto('users').values(values).returning('id').executeTakeFirstOrThrow()
      return row.id
    },

    async update(id: number, values: Updateable<Users>): Promise<void> {
      const write = (target: Kysely<Database>) =>
        target
          .updateTable('users')
          .set({ ...values, modified_at: sql`now()` })
          .where('id', '=', id)
          .execute()
          .then(() => {})
      if (values.is_active === undefined) return write(db)
      await withEligibility(db, id, values.is_active === true, write)
    },

    async areaTypes(ids: number[]): Promise<Map<number, { m_type: string; parent_id: number | null }>> {
      if (ids.length === 0) return new Map()
      const rows = await db.selectFrom('areas').select(['id', 'm_type', 'parent_id']).where('id', 'in', ids).execute()
      return new Map(rows.map((row) => [row.id, row]))
    },

    /**
     * Country, region and district of a point: the nearest region centre within REGION_RADIUS_KM (the region
     * is also the district), else the nearest country centre. Areas carry centres, not boundaries.
     */
    async place(longitude: number, latitude: number): Promise<Placement> {
      const distance = sql<number>`6371 * 2 * asin(sqrt(power(sin(radians(latitude - ${latitude}) / 2), 2) + cos(radians(${latitude})) * cos(radians(latitude)) * power(sin(radians(longitude - ${longitude}) / 2), 2)))`
      const nearest = (type: string) =>
        db
          .selectFrom('areas')
          .select(['id', 'parent_id', distance.as('km')])
          .where('m_type', '=', type)
          .orderBy(distance)
          .limit(1)
          .executeTakeFirst()
      const region = await nearest('region')
      if (region && region.km <= REGION_RADIUS_KM) return { country_id: region.parent_id, region_id: region.id, district_id: region.id }
      const country = await nearest('country')
      return { country_id: country?.id ?? null, region_id: null, district_id: null }
    },

    /** The user's area links (user_geos) follow their country and region. */
    async syncLocations(userId: number, areaIds: (number | null)[]): Promise<void> {
      const ids = [...new Set(areaIds.filter((id): id is number => id !== null))]
      let removal = db.deleteFrom('user_geos').where('user_id', '=', userId)
      if (ids.length) removal = removal.where('area_id', 'not in', ids)
      await removal.execute()
      if (ids.length) {
        await db
          .insertInto('user_geos')
          .values(ids.map((area_id) => ({ user_id: userId, area_id })))
          .onConflict((oc) => oc.columns(['user_id', 'area_id']).doNothing())
          .execute()
      }
    },

    /** Spec 2.2's deleted user: anonymous, signed out everywhere; answers stay and keep counting. */
    async anonymise(id: number): Promise<void> {
      await withEligibility(db, id, false, (target) =>
        target
          .updateTable('users')
          .set({
            username: `deleted_${id}`,
            email: null,
            password_hash: null,
            first_name: '',
            last_name: DELETED_MARKER,
            bio: '',
            photo: null,
            dob: null,
            gender: 0,
            address: '',
            longitude: null,
            latitude: null,
            phone: null,
            is_phone_verified: false,
            politician_id: null,
            is_active: false,
            is_deleted: true,
            deleted_at: sql`now()`,
            modified_at: sql`now()`,
          })
          .where('id', '=', id)
          .execute()
          .then(() => {}),
      )
      await db.deleteFrom('social_accounts').where('user_id', '=', id).execute()
      await db.deleteFrom('push_devices').where('user_id', '=', id).execute()
      await db
        .updateTable('one_time_codes')
        .set({ used_at: sql`now()` })
        .where('user_id', '=', id)
        .where('used_at', 'is', null)
        .execute()
    },
  }
}

/** The last name every deleted user carries (spec 2.2). */
export const DELETED_MARKER = '[deleted]'
