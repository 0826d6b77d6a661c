import type { FastifyRequest } from 'fastify'
import type { Selectable, Transaction } from 'kysely'
import type { Database, Users } from '../../db/database.ts'
import type { App } from '../../http/app-type.ts'
import { fieldError, ValidationFailed } from '../../core/errors.ts'
import { accountsRepository } from './accounts.repository.ts'
import { tokenName } from './accounts.routes.ts'
import { CodeRejected, codeStore, type CodePurpose } from './codes.repository.ts'
import { hashPassword, passwordProblems } from './passwords.ts'
import { signingKey } from './secrets.ts'
import { tokensRepository } from './tokens.repository.ts'

type User = Selectable<Users>

const sameAddress = (a: string | null, b: string) => a !== null && a.trim().toLowerCase() === b.trim().toLowerCase()

/**
 * Uses a link code and does `work` for its user, in one transaction: when anything fails (a weak password,
 * an account deleted since) the code stays unused. A code also needs the account not to be deleted and
 * to still have the address it was sent to. Rejections answer 400 {"code": [...]}.
 */
async function redeem<T>(
  app: App,
  purpose: CodePurpose,
  code: string,
  email: string,
  work: (trx: Transaction<Database>, user: User) => Promise<T>,
): Promise<T> {
  const key = await signingKey(app.db, app.config)
  try {
    return await app.db.transaction().execute(async (trx) => {
      const { userId, target } = await codeStore(trx, key).consumeLinkCode(purpose, code, email)
      const user = await accountsRepository(trx).findById(userId)
      if (!user || user.is_deleted || !sameAddress(user.email, target)) throw new CodeRejected('invalid')
      return work(trx, user)
    })
  } catch (error) {
    if (error instanceof CodeRejected) throw fieldError('code', error.message)
    throw error
  }
}

/** Reading the mail proves the address. */
export async function confirmEmail(app: App, code: string, email: string): Promise<void> {
  await redeem(app, 'confirm_email', code, email, (trx, user) => accountsRepository(trx).update(user.id, { is_email_verified: true }))
}

/** Sets the new password and ends every sign-in; the address is proven too, and a deactivated account is back. */
export async function resetPassword(app: App, code: string, email: string, newPassword: string): Promise<void> {
  // Rules that do not depend on the account first: they tell nothing about it and spare the hashing.
  const general = passwordProblems(newPassword, {})
  if (general.length) throw ValidationFailed({ new_password: general })
  // Hashed outside the transaction: it takes a while, and PGlite runs one transaction at a time.
  const passwordHash = await hashPassword(newPassword)
  await redeem(app, 'password_reset', code, email, async (trx, user) => {
    const problems = passwordProblems(newPassword, { username: user.username, email: user.email })
    if (problems.length) throw ValidationFailed({ new_password: problems })
    await accountsRepository(trx).update(user.id, { password_hash: passwordHash, is_email_verified: true, is_active: true })
    await tokensRepository(trx).revokeAllOf(user.id)
  })
}

/** A new sign-in token for the user the link was sent to; like a password sign-in, it undoes a deactivation. */
export async function signInWithCode(
  app: App,
  request: FastifyRequest,
  code: string,
  email: string,
): Promise<{ userId: number; token: string }> {
  return redeem(app, 'onetime_signin', code, email, async (trx, user) => {
    await accountsRepository(trx).update(user.id, { last_login: new Date(), is_email_verified: true, is_active: true })
    return { userId: user.id, token: await tokensRepository(trx).issue(user.id, tokenName(request, 'sign-in link')) }
  })
}
