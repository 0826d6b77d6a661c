import { pbkdf2, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { gunzipSync } from 'node:zlib'
import pLimit from 'p-limit'
import type { PasswordHashing } from '../../config.ts'
import { ApiError } from '../../core/errors.ts'

/** scrypt at one of OWASP's recommended settings (64 MiB, p=2): memory-hard, a few hundred ms per hash. */
const SCRYPT = { N: 2 ** 16, r: 8, p: 2, keyLength: 32 }
export const SCRYPT_COST = SCRYPT.N
let scryptCost = SCRYPT.N

/**
 * For tests (each file in its own process): a cheaper cost, as Django's test settings swap in a fast hasher,
 * or `SCRYPT_COST` back for the tests of hashing itself. The service itself never calls it.
 */
export function lowerPasswordHashCostForTests(N: number): void {
  scryptCost = N
}
const MAX_MEMORY = 256 * 1024 * 1024

export const MIN_PASSWORD_LENGTH = 8
export const MAX_PASSWORD_LENGTH = 128

/**
 * Every hash of the process runs through this gate: each scrypt holds 64 MiB for its whole run, so a burst of
 * sign-ins must not start them all at once. Callers past `queue` waiting ones are refused with 503 at once.
 */
const hashing = pLimit(availableParallelism())
let queueLimit = 64

/** Sizes the gate (PASSWORD_HASH_CONCURRENCY, PASSWORD_HASH_QUEUE); the gate is the process's, whichever app sets it. */
export function configurePasswordHashing(settings: PasswordHashing): void {
  hashing.concurrency = settings.concurrency
  queueLimit = settings.queue
}

/** How many hashes run and wait right now. */
export function passwordHashingLoad(): { running: number; waiting: number } {
  return { running: hashing.activeCount, waiting: hashing.pendingCount }
}

/** Too many sign-ins at once: come back in a moment (the client did nothing wrong, so not 429). */
const HashingBusy = () =>
  new ApiError(503, { detail: 'Too many sign-ins are being checked right now; try again in a few seconds.' }, { 'retry-after': '2' })

function gated<T>(work: () => Promise<T>): Promise<T> {
  if (hashing.activeCount >= hashing.concurrency && hashing.pendingCount >= queueLimit) return Promise.reject(HashingBusy())
  return hashing(work)
}

function scryptAsync(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return gated(
    () =>
      new Promise((resolve, reject) => scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)))),
  )
}

function pbkdf2Async(password: string, salt: string, iterations: number, keyLength: number): Promise<Buffer> {
  return gated(
    () =>
      new Promise((resolve, reject) =>
        pbkdf2(password, salt, iterations, keyLength, 'sha256', (error, key) => (error ? reject(error) : resolve(key))),
      ),
  )
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const { r, p, keyLength } = SCRYPT
  const N = scryptCost
  const key = await scryptAsync(password, salt, keyLength, { N, r, p, maxmem: MAX_MEMORY })
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$')
}

let decoy: Promise<string> | null = null

/** A hash no password matches, verified for unknown names so that both failures take the same time. */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex')).catch((error: unknown) => {
    decoy = null
    throw error
  })
  return decoy
}

export interface PasswordCheck {
  valid: boolean
  /** The stored hash uses an older scheme or weaker parameters: store a new one. */
  needsRehash: boolean
}

/** Verifies our scrypt hashes and Django's `pbkdf2_sha256$iterations$salt$hash` of imported users, in constant time. */
export async function verifyPassword(password: string, stored: string | null): Promise<PasswordCheck> {
  const invalid = { valid: false, needsRehash: false }
  if (!stored) return invalid
  const parts = stored.split('$')
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [, n, r, p, salt, hash] = parts
    const expected = Buffer.from(hash, 'base64')
    const options = { N: Number(n), r: Number(r), p: Number(p), maxmem: MAX_MEMORY }
    const key = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, options)
    const valid = key.length === expected.length && timingSafeEqual(key, expected)
    return { valid, needsRehash: valid && (options.N !== scryptCost || options.r !== SCRYPT.r || options.p !== SCRYPT.p) }
  }
  if (parts[0] === 'pbkdf2_sha256' && parts.length === 4) {
    const [, iterations, salt, hash] = parts
    const expected = Buffer.from(hash, 'base64')
    if (!/^\d+$/.test(iterations) || expected.length === 0) return invalid
    const key = await pbkdf2Async(password, salt, Number(iterations), expected.length)
    const valid = timingSafeEqual(key, expected)
    return { valid, needsRehash: valid }
  }
  return invalid
}

let commonPasswords: Set<string> | null = null

/** Passwords of 8 characters or more among the most used ones (zxcvbn's frequency list, shipped with the service). */
function isCommon(password: string): boolean {
  commonPasswords ??= new Set(
    gunzipSync(readFileSync(new URL('./data/common-passwords.txt.gz', import.meta.url)))
      .toString('utf8')
      .split('\n')
      .filter(Boolean),
  )
  return commonPasswords.has(password.toLowerCase().trim())
}

/** Django's password validators, with their messages: length, numeric, similarity to the username or e-mail, common. */
export function passwordProblems(password: string, identity: { username?: string | null; email?: string | null }): string[] {
  const problems: string[] = []
  if (password.length < MIN_PASSWORD_LENGTH) {
    problems.push(`This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.`)
  }
  if (/^\d+$/.test(password)) problems.push('This password is entirely numeric.')
  const lowered = password.toLowerCase()
  const similarTo = (value: string | null | undefined) => {
    if (!value) return false
    const candidates = [value.toLowerCase(), ...value.toLowerCase().split(/[\W_]+/)].filter((part) => part.length >= 4)
    return candidates.some((part) => lowered === part || (lowered.includes(part) && part.length * 2 >= lowered.length))
  }
  if (similarTo(identity.username)) problems.push('The password is too similar to the username.')
  else if (similarTo(identity.email?.split('@')[0])) problems.push('The password is too similar to the email address.')
  if (isCommon(password)) problems.push('This password is too common.')
  return problems
}
