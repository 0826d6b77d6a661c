/** Timestamps leave the service as ISO 8601 UTC with milliseconds and a trailing Z. */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value)
}
