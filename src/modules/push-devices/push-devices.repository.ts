import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, PushDevices } from '../../db/database.ts'
import { iso } from '../../core/time.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { Device, DeviceKind } from './push-devices.schemas.ts'

export type DeviceRow = Selectable<PushDevices>

export function toDevice(row: DeviceRow): Device {
  return { id: row.id, name: row.name, registration_id: row.registration_id, active: row.active, date_created: iso(row.created_at) }
}

export function pushDevicesRepository(db: Kysely<Database>) {
  return {
    /** A page of a user's devices of one kind, oldest first (the listing takes no ordering). */
    async page(userId: number, kind: DeviceKind, list: ListRequest): Promise<RowsPage<DeviceRow>> {
      const filtered = db.selectFrom('push_devices').where('user_id', '=', userId).where('kind', '=', kind)
      return pageOfRows<DeviceRow>(list, filtered, (q) => q.selectAll(), [{ expression: sql`id`, direction: 'asc' }])
    },

    async find(kind: DeviceKind, registrationId: string): Promise<DeviceRow | undefined> {
      return db
        .selectFrom('push_devices')
        .selectAll()
        .where('kind', '=', kind)
        .where('registration_id', '=', registrationId)
        .executeTakeFirst()
    },

    /**
     * Registers a device to the user. A registration id is one app install: when it is known already (the
     * phone changed hands, or another account signed in on it) it moves to this user, in one statement.
     */
    async register(userId: number, kind: DeviceKind, values: { registration_id: string; name?: string; active?: boolean }) {
      const changes = {
        user_id: userId,
        modified_at: sql<Date>`now()`,
        ...(values.name !== undefined ? { name: values.name } : {}),
        ...(values.active !== undefined ? { active: values.active } : {}),
      }
      return (
        db
          .insertInto('push_devices')
          .values({
            user_id: userId,
            kind,
            registration_id: values.registration_id,
            name: values.name ?? '',
            active: values.active ?? true,
          })
          .onConflict((oc) => oc.columns(['kind', 'registration_id']).doUpdateSet(changes))
          .returningAll()
          // xmax is 0 on a row this statement inserted, set on one it updated.
          .returning(sql<boolean>`xmax = 0`.as('created'))
          .executeTakeFirstOrThrow()
      )
    },

    async update(id: number, values: { registration_id?: string; name?: string; active?: boolean }): Promise<DeviceRow> {
      return db
        .updateTable('push_devices')
        .set({ ...values, modified_at: sql`now()` })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    /** False when the device was already gone (another request removed it first). */
    async remove(id: number): Promise<boolean> {
      const result = await db.deleteFrom('push_devices').where('id', '=', id).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },

    /** Where a user's notifications go. */
    async activeOf(userId: number) {
      return db
        .selectFrom('push_devices')
        .select(['kind', 'registration_id'])
        .where('user_id', '=', userId)
        .where('active', '=', true)
        .orderBy('id')
        .execute()
    },
  }
}
