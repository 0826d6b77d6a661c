/** The longest slug a title gives before any -N suffix: long enough to read, short enough for a URL. */
export const SLUG_LENGTH = 60

/** A title as a URL slug: ASCII lowercase words joined by hyphens; "question" when nothing is left. */
export function slugify(title: string): string {
  const ascii = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
  const words = ascii.toLowerCase().match(/[a-z0-9]+/g) ?? []
  let slug = ''
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word
    if (next.length > SLUG_LENGTH) break
    slug = next
  }
  // A first word longer than the limit is cut rather than dropped.
  const first = words[0]
  if (!slug && first) slug = first.slice(0, SLUG_LENGTH)
  return slug || 'question'
}

/**
 * The first free slug for `base` given the slugs already taken that start with it: base itself, then
 * base-2, base-3, ... after the highest suffix in use.
 */
export function nextFreeSlug(base: string, taken: string[]): string {
  const suffix = new RegExp(`^${base}-(\\d+)$`)
  let highest = 0
  let baseTaken = false
  for (const slug of taken) {
    if (slug === base) baseTaken = true
    const match = suffix.exec(slug)
    if (match) highest = Math.max(highest, Number(match[1]))
  }
  if (!baseTaken) return base
  return `${base}-${Math.max(highest, 1) + 1}`
}
