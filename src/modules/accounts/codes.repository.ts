import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { hashSecret } from '../../core/secrets.ts'
import { hmac } from './secrets.ts'

export type CodePurpose = 'confirm_email' | 'password_reset' | 'onetime_signin' | 'phone'

/** Seconds a code stays valid. */
export const CODE_LIFETIME: Record<CodePurpose, number> = {
  confirm_email: 3 * 24 * 3600,
  password_reset: 3600,
  onetime_signin: 15 * 60,
  phone: 10 * 60,
}

/** Wrong guesses a phone code survives. */
export const MAX_CODE_ATTEMPTS = 5

export type RejectionReason = 'invalid' | 'expired' | 'used' | 'attempts'

const MESSAGES: Record<RejectionReason, string> = {
  invalid: 'Invalid code.',
  expired: 'This code has expired.',
  used: 'This code has already been used.',
  attempts: 'Too many wrong attempts: ask for a new code.',
}

export class CodeRejected extends Error {
  constructor(readonly reason: RejectionReason) {
    super(MESSAGES[reason])
  }
}

const base64url = (buffer: Buffer) => buffer.toString('base64url')
const sameTarget = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase()

/**
 * One-time codes. Link codes (sent by e-mail) are a random nonce signed with the service key for one
 * purpose and one address, so a forged or re-purposed code fails before any lookup; numeric codes (SMS)
 * are short, so they are bound to one user and allow few attempts. Both are stored hashed, expire, and
 * are used at most once: the use is a conditional update, safe under concurrent attempts.
 */
export function codeStore(db: Kysely<Database>, key: Buffer) {
  async function supersede(userId: number, purpose: CodePurpose) {
    await db
      .updateTable('one_time_codes')
      .set({ used_at: sql`now()` })
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .execute()
  }

  async function insert(userId: number, purpose: CodePurpose, target: string, codeHash: string) {
    await db
      .insertInto('one_time_codes')
      .values({
        user_id: userId,
        purpose,
        target,
        code_hash: codeHash,
        expires_at: sql`now() + make_interval(secs => ${CODE_LIFETIME[purpose]})`,
      })
      .execute()
  }

  async function markUsed(id: number): Promise<boolean> {
    const used = await db
      .updateTable('one_time_codes')
      .set({ used_at: sql`now()` })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('attempts', '<', MAX_CODE_ATTEMPTS)
      .returning('id')
      .executeTakeFirst()
    return used !== undefined
  }

  return {
    /** A new code for the user; earlier unused codes of the same purpose stop working. */
    async issueLinkCode(userId: number, purpose: CodePurpose, target: string): Promise<string> {
      const nonce = base64url(randomBytes(18))
      const code = `${nonce}.${base64url(hmac(key, purpose, target.toLowerCase(), nonce).subarray(0, 12))}`
      await supersede(userId, purpose)
      await insert(userId, purpose, target, hashSecret(code))
      return code
    },

    /** The user a link code was issued to, once; `target` is the address the code was sent to. */
    async consumeLinkCode(purpose: CodePurpose, code: string, target: string): Promise<{ userId: number; target: string }> {
      const [nonce, signature] = code.trim().split('.')
      if (!nonce || !signature) throw new CodeRejected('invalid')
      const expected = hmac(key, purpose, target.trim().toLowerCase(), nonce).subarray(0, 12)
      const given = Buffer.from(signature, 'base64url')
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new CodeRejected('invalid')
      const row = await db
        .selectFrom('one_time_codes')
        .select(['id', 'user_id', 'target', 'used_at', sql<boolean>`expires_at <= now()`.as('expired')])
        .where('code_hash', '=', hashSecret(code.trim()))
        .where('purpose', '=', purpose)
        .executeTakeFirst()
      if (!row || !sameTarget(row.target, target)) throw new CodeRejected('invalid')
      if (row.used_at) throw new CodeRejected('used')
      if (row.expired) throw new CodeRejected('expired')
      if (!(await markUsed(row.id))) throw new CodeRejected('used')
      return { userId: row.user_id, target: row.target }
    },

    /** A six-digit code for the user, to send by SMS. */
    async issueNumericCode(userId: number, purpose: CodePurpose, target: string): Promise<string> {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
      const salt = base64url(randomBytes(12))
      await supersede(userId, purpose)
      await insert(userId, purpose, target, `${salt}:${hmac(key, purpose, userId, salt, code).toString('hex')}`)
      return code
    },

    /** Checks the user's latest code; a wrong guess uses up an attempt. */
    async consumeNumericCode(userId: number, purpose: CodePurpose, code: string): Promise<{ target: string }> {
      const row = await db
        .selectFrom('one_time_codes')
        .select(['id', 'code_hash', 'target', 'attempts', sql<boolean>`expires_at <= now()`.as('expired')])
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst()
      if (!row) throw new CodeRejected('invalid')
      if (row.expired) throw new CodeRejected('expired')
      if (row.attempts >= MAX_CODE_ATTEMPTS) throw new CodeRejected('attempts')
      const [salt, stored] = row.code_hash.split(':')
      const expected = Buffer.from(stored, 'hex')
      const given = hmac(key, purpose, userId, salt, code.trim())
      if (!timingSafeEqual(given, expected)) {
        const counted = await db
          .updateTable('one_time_codes')
          .set({ attempts: sql`attempts + 1` })
          .where('id', '=', row.id)
          .returning('attempts')
          .executeTakeFirstOrThrow()
        throw new CodeRejected(counted.attempts >= MAX_CODE_ATTEMPTS ? 'attempts' : 'invalid')
      }
      if (!(await markUsed(row.id))) throw new CodeRejected('used')
      return { target: row.target }
    },
  }
}
