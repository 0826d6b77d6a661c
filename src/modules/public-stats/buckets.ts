import type { Interval } from './public-stats.schemas.ts'

/**
 * Calendar buckets in UTC, as PostgreSQL's date_trunc makes them: days, ISO weeks (from Monday) and
 * months. Pure, so the labels the service answers and the buckets SQL groups by are the same dates.
 */
const DAY = 86_400_000

export function parseDay(text: string): Date {
  return new Date(`${text}T00:00:00.000Z`)
}

export function dayLabel(date: Date): string {
  return date.toISOString().slice(0, 10)
}

export function truncate(date: Date, interval: Interval): Date {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()))
  if (interval === 'day') return day
  if (interval === 'month') return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1))
  const sinceMonday = (day.getUTCDay() + 6) % 7
  return new Date(day.getTime() - sinceMonday * DAY)
}

export function nextBucket(start: Date, interval: Interval): Date {
  if (interval === 'day') return new Date(start.getTime() + DAY)
  if (interval === 'week') return new Date(start.getTime() + 7 * DAY)
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1))
}

/** The first day of every bucket touching [start, end], both days included; null past `limit` buckets. */
export function bucketStarts(start: Date, end: Date, interval: Interval, limit: number): Date[] | null {
  const starts: Date[] = []
  for (let bucket = truncate(start, interval); bucket <= end; bucket = nextBucket(bucket, interval)) {
    if (starts.length === limit) return null
    starts.push(bucket)
  }
  return starts
}

/** Places per-bucket counts (keyed by the bucket's first day) on the labels; buckets without rows are 0. */
export function seriesOn(labels: string[], rows: { bucket: string; count: number }[]): number[] {
  const byBucket = new Map(rows.map((row) => [row.bucket, Number(row.count)]))
  return labels.map((label) => byBucket.get(label) ?? 0)
}

/** Running totals from a starting count. */
export function cumulative(initial: number, counts: number[]): number[] {
  let total = initial
  return counts.map((count) => (total += count))
}
