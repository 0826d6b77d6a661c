import { Type, type Static } from 'typebox'
import { Id, Nullable, Timestamp } from '../../http/schemas.ts'
import { FullUser } from '../users/users.schemas.ts'

/** Django's username rule: letters, digits and @ . + - _ only. */
export const Username = Type.String({ minLength: 1, maxLength: 150, pattern: '^[\\w.@+-]+$' })
export const Email = Type.String({ minLength: 3, maxLength: 254, format: 'email' })
/** Old clients send a number (a password they generate and never show): see docs/auth.md. */
export const Password = Type.String({ minLength: 1, maxLength: 128 })
const Name = Type.String({ maxLength: 150 })
/** Year, month and day; clients also send them without zero padding (1990-1-5). */
const DateOfBirth = Nullable(Type.String({ pattern: '^\\d{4}-\\d{1,2}-\\d{1,2}$' }))
const Gender = Type.Integer({ minimum: 0, maximum: 3, description: '0 rather not say, 1 male, 2 female, 3 other' })
/** A GeoJSON point; coordinates sent as strings are read as numbers. */
const Location = Nullable(
  Type.Object({
    type: Type.Literal('Point'),
    coordinates: Type.Tuple([Type.Number({ minimum: -180, maximum: 180 }), Type.Number({ minimum: -90, maximum: 90 })], {
      description: '[longitude, latitude]',
    }),
  }),
)

export const RegisterBody = Type.Object({
  username: Username,
  email: Email,
  password: Password,
  first_name: Type.Optional(Name),
  last_name: Type.Optional(Name),
  address: Type.Optional(Type.String({ maxLength: 300 })),
  location: Type.Optional(Location),
  gender: Type.Optional(Gender),
  dob: Type.Optional(DateOfBirth),
  agreed_terms: Type.Optional(Type.Boolean()),
  default_share_email: Type.Optional(Type.Boolean({ description: 'accepted for the original web app; not stored' })),
})
export type RegisterBody = Static<typeof RegisterBody>

export const LoginBody = Type.Object({
  username: Type.Optional(Type.String({ maxLength: 254, description: 'a username or an e-mail address' })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  password: Password,
})
export type LoginBody = Static<typeof LoginBody>

export const ProfilePatch = Type.Object({
  username: Type.Optional(Username),
  email: Type.Optional(Email),
  first_name: Type.Optional(Name),
  last_name: Type.Optional(Name),
  bio: Type.Optional(Type.String({ maxLength: 2000 })),
  photo: Type.Optional(Nullable(Type.String({ maxLength: 500, format: 'uri' }))),
  dob: Type.Optional(DateOfBirth),
  gender: Type.Optional(Gender),
  address: Type.Optional(Type.String({ maxLength: 300 })),
  location: Type.Optional(Location),
  country: Type.Optional(Nullable(Id)),
  region: Type.Optional(Nullable(Id)),
  default_private: Type.Optional(Type.Boolean()),
  defHideAnswers: Type.Optional(Type.Boolean({ description: "the original web app's name for default_private" })),
})
export type ProfilePatch = Static<typeof ProfilePatch>

/** The signed-in user: the full user of spec 2.2 plus the private profile fields the clients read. */
export const Me = Type.Object({
  ...FullUser.properties,
  email: Nullable(Type.String()),
  dob: Nullable(Type.String({ format: 'date' })),
  gender: Type.Integer(),
  address: Type.String(),
  location: Location,
  district: Nullable(Type.Integer()),
  default_private: Type.Boolean(),
  defHideAnswers: Type.Boolean({ description: 'same as default_private, under the name the web app reads' }),
  phone: Nullable(Type.String()),
  is_phone_verified: Type.Boolean(),
  agreed_terms: Type.Boolean(),
  is_staff: Type.Boolean(),
  has_password: Type.Boolean(),
})
export type Me = Static<typeof Me>

export const SignedIn = Type.Object({ ...Me.properties, auth_token: Type.String() })

export const PasswordBody = Type.Object({ password: Password })
export const ChangePasswordBody = Type.Object({
  old_password: Type.Optional(Password),
  new_password: Password,
})

export const CheckEmailQuery = Type.Object({ email: Type.String({ maxLength: 254 }) })
export const Result = Type.Object({ result: Type.Boolean() })

export const TokenInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  current: Type.Boolean(),
})
