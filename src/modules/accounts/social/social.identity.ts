/** Who the provider says signed in: its subject plus the profile claims that fill a new account. */
export interface SocialIdentity {
  subject: string
  email: string | null
  emailVerified: boolean
  preferredUsername: string
  givenName: string
  familyName: string
  name: string
}

const text = (value: unknown, max = 150) => (typeof value === 'string' ? value.trim().slice(0, max) : '')

/** Claims from an ID token and/or the userinfo endpoint; providers differ in which they fill. */
export function identityFromClaims(claims: Record<string, unknown>): SocialIdentity {
  const email = text(claims.email, 255)
  return {
    subject: String(claims.sub),
    email: /^[^@\s]+@[^@\s]+$/.test(email) && email.length <= 254 ? email : null,
    // Some providers send the flag as a string.
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    preferredUsername: text(claims.preferred_username),
    givenName: text(claims.given_name),
    familyName: text(claims.family_name),
    name: text(claims.name),
  }
}

const MAX_BASE = 140 // leaves room for a numeric suffix within Django's 150

/** A username following Django's rule (letters, digits, @ . + - _), from the best claim available. */
export function baseUsername(identity: SocialIdentity): string {
  const candidates = [
    identity.preferredUsername,
    identity.email?.split('@')[0],
    identity.name,
    `${identity.givenName} ${identity.familyName}`,
  ]
  for (const candidate of candidates) {
    const cleaned = (candidate ?? '')
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .trim()
      .replace(/\s+/g, '_')
      .replace(/[^\w.@+-]/g, '')
      .slice(0, MAX_BASE)
    // deleted_<id> is what deleted accounts are renamed to.
    if (cleaned && !/^deleted_\d+$/i.test(cleaned)) return cleaned
  }
  return 'user'
}

/** The base itself when free, else the base with the smallest number that makes it unique. */
export function firstFreeUsername(base: string, taken: Set<string>): string {
  if (!taken.has(base.toLowerCase())) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}${n}`
    if (!taken.has(candidate.toLowerCase())) return candidate
  }
}
