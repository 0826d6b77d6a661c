import { Type, type Static } from 'typebox'
import { Id, Nullable, Timestamp } from '../../http/schemas.ts'

export const KINDS = ['gcm', 'apns'] as const
export type DeviceKind = (typeof KINDS)[number]

/** How long a registration id may be: FCM/GCM tokens run long, APNs device tokens are short hex. */
export const MAX_REGISTRATION_ID: Record<DeviceKind, number> = { gcm: 4096, apns: 200 }

/** FCM/GCM tokens are URL-safe text; APNs tokens are hex. Neither may hold a slash, as they appear in paths. */
const REGISTRATION_ID_PATTERN: Record<DeviceKind, RegExp> = { gcm: /^[\w:.=+-]+$/, apns: /^[0-9a-fA-F]+$/ }

export const registrationIdValid = (kind: DeviceKind, value: string) => REGISTRATION_ID_PATTERN[kind].test(value)

export const Device = Type.Object({
  id: Id,
  name: Type.String(),
  registration_id: Type.String(),
  active: Type.Boolean(),
  date_created: Timestamp,
})
export type Device = Static<typeof Device>

const Name = Nullable(Type.String({ maxLength: 255 }))
/** iOS sends `active` as the string "1": the body layer reads DRF's boolean strings. */
const Active = Type.Boolean()

export function deviceBodies(kind: DeviceKind) {
  const RegistrationId = Type.String({ minLength: 1, maxLength: MAX_REGISTRATION_ID[kind] })
  return {
    create: Type.Object({ registration_id: RegistrationId, name: Type.Optional(Name), active: Type.Optional(Active) }),
    update: Type.Object({ registration_id: Type.Optional(RegistrationId), name: Type.Optional(Name), active: Type.Optional(Active) }),
  }
}
export type DeviceBody = { registration_id?: string; name?: string | null; active?: boolean }

export const DeviceParams = Type.Object({ registration_id: Type.String({ minLength: 1, maxLength: 4096 }) })
