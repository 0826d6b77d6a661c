import { createHash, randomBytes } from 'node:crypto'

/** Secrets are random (256 bits), so a plain SHA-256 is a safe, indexable way to store them. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

export function newSecret(): string {
  return randomBytes(32).toString('hex')
}

/** 160 random bits as 40 hex characters: the length of the original service's tokens, which clients store. */
export function newToken(): string {
  return randomBytes(20).toString('hex')
}
