import type { Kysely, Updateable } from 'kysely'
import type { Database, Users } from '../../../db/database.ts'
import { ValidationFailed } from '../../../core/errors.ts'
import { accountsRepository } from '../accounts.repository.ts'
import { baseUsername, firstFreeUsername, type SocialIdentity } from './social.identity.ts'
import type { Slot } from './social.providers.ts'
import { socialAccountsRepository } from './social-accounts.repository.ts'

export interface SocialSignIn {
  userId: number
  /** A new account was made for this identity. */
  created: boolean
}

/**
 * The user a provider's identity belongs to: the one linked to it, else the one with the e-mail address the
 * provider verified, else a new one. Signing in marks the user verified by that provider and undoes a
 * deactivation; deleted users never sign in.
 */
export async function signInIdentity(db: Kysely<Database>, slot: Slot, identity: SocialIdentity): Promise<SocialSignIn> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => resolveUser(trx, slot, identity))
    } catch (error) {
      // Two first sign-ins at once (or a name taken meanwhile): the next try sees the other's rows.
      if (attempt < 3 && (error as { code?: string }).code === '23505') continue
      throw error
    }
  }
}

async function resolveUser(db: Kysely<Database>, slot: Slot, identity: SocialIdentity): Promise<SocialSignIn> {
  const repository = accountsRepository(db)
  const verifiedEmail = identity.emailVerified ? identity.email : null
  const socialAccounts = socialAccountsRepository(db)
  let user = await socialAccounts.linkedUser(slot, identity.subject)
  const linked = user !== undefined
  if (!user && verifiedEmail) user = await repository.findByEmail(verifiedEmail)
  if (user?.is_deleted) throw ValidationFailed({ non_field_errors: ['This account has been deleted.'] })

  let created = false
  if (!user) {
    user = await createUser(db, identity)
    created = true
  }
  if (linked) await socialAccounts.signedIn(slot, identity.subject, identity.email)
  else await socialAccounts.link(user.id, slot, identity.subject, identity.email)

  const values: Updateable<Users> = { [`is_${slot}_verified`]: true, is_active: true, last_login: new Date() }
  if (verifiedEmail && user.email?.toLowerCase() === verifiedEmail.toLowerCase()) values.is_email_verified = true
  await repository.update(user.id, values)
  return { userId: user.id, created }
}

async function createUser(db: Kysely<Database>, identity: SocialIdentity) {
  const repository = accountsRepository(db)
  const email = identity.email && !(await repository.emailTaken(identity.email)) ? identity.email : null
  const base = baseUsername(identity)
  const username = firstFreeUsername(base, await socialAccountsRepository(db).usernamesStartingWith(base))
  const id = await repository.create({
    username,
    email,
    password_hash: null,
    first_name: identity.givenName,
    last_name: identity.familyName,
    is_email_verified: email !== null && identity.emailVerified,
  })
  return { id, email, is_deleted: false }
}
