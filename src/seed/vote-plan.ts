import { ACTIVITY_END, BASE_TIME, DAY, usersSignedUpBy, type QuestionPool, type UserPool } from './context.ts'
import { UK_REGIONS } from './data/uk-regions.ts'
import { AliasTable, type Random } from './random.ts'

/**
 * How many people answer each of the given questions, adding up to about `total`: popularity is
 * heavy-tailed and grows with the time a question is open; no question gets more than 80% of the
 * users who had signed up before it closed.
 */
export function voterCounts(
  rng: Random,
  questions: QuestionPool,
  users: UserPool,
  indices: readonly number[],
  total: number,
): Map<number, number> {
  const weight = new Map<number, number>()
  const cap = new Map<number, number>()
  for (const q of indices) {
    const open = questions.voteClose[q] - questions.voteOpen[q]
    if (open <= 0) continue
    weight.set(q, rng.logNormal(0.9) * (open / (ACTIVITY_END - BASE_TIME)) ** 0.6)
    cap.set(q, Math.floor(usersSignedUpBy(users, questions.voteClose[q] - DAY) * 0.8))
  }
  const counts = new Map<number, number>()
  let remaining = total
  let open = [...weight.keys()]
  // Water-filling: questions that hit their cap are fixed there and the rest is shared out again.
  for (let round = 0; open.length > 0; round++) {
    const sum = open.reduce((s, q) => s + weight.get(q)!, 0)
    const share = (q: number) => Math.max(0, (remaining * weight.get(q)!) / sum)
    const capped = open.filter((q) => share(q) >= cap.get(q)!)
    if (capped.length === 0 || round === 50) {
      for (const q of open) counts.set(q, Math.min(cap.get(q)!, Math.round(share(q))))
      break
    }
    for (const q of capped) {
      counts.set(q, cap.get(q)!)
      remaining -= cap.get(q)!
    }
    const fixed = new Set(capped)
    open = open.filter((q) => !fixed.has(q))
  }
  return counts
}

/** Draws distinct voters for one question at a time, active users more often. */
export class VoterSampler {
  private readonly table: AliasTable
  private readonly mark: Int32Array
  private stamp = 0

  constructor(private readonly users: UserPool) {
    this.table = new AliasTable(users.activity)
    this.mark = new Int32Array(users.count)
  }

  /** Up to n user indices who had signed up well before `close`, none twice. */
  draw(rng: Random, n: number, close: number): number[] {
    this.stamp++
    const out: number[] = []
    const limit = close - 3600
    for (let attempts = 30 * n + 100; out.length < n && attempts > 0; attempts--) {
      const u = this.table.draw(rng)
      if (this.mark[u] === this.stamp || this.users.createdAt[u] >= limit) continue
      this.mark[u] = this.stamp
      out.push(u)
    }
    return out
  }
}

/** A moment between the later of opening and sign-up and the close, most answers coming early. */
export function answerTime(rng: Random, open: number, close: number, signedUp: number): number {
  const from = Math.max(open, signedUp)
  return Math.min(close - 1, from + Math.floor((close - from) * rng.next() ** 2.2))
}

/** When an earlier answer was replaced: some days after it, before the question closes. */
export function replacementTime(rng: Random, answered: number, close: number): number {
  return Math.min(close - 1, answered + 600 + Math.floor(rng.exponential(15 * DAY)))
}

const ID_BITS = 2 ** 23

/**
 * Ranks rows by time (ties by generation order): `order[rank]` is the generated row at that rank and
 * `idOf[row]` its id (rank + 1).
 */
export function rankByTime(times: Float64Array, count: number): { order: Int32Array; idOf: Int32Array } {
  if (count >= ID_BITS) throw new Error(`too many rows to rank: ${count}`)
  const keys = new Float64Array(count)
  for (let i = 0; i < count; i++) keys[i] = (times[i] - BASE_TIME) * ID_BITS + i
  keys.sort()
  const order = new Int32Array(count)
  const idOf = new Int32Array(count)
  for (let rank = 0; rank < count; rank++) {
    const row = keys[rank] % ID_BITS
    order[rank] = row
    idOf[row] = rank + 1
  }
  return { order, idOf }
}

export interface Analytics {
  interface: string
  os: string
  browser: string | null
  parentUrl: string | null
  location: string
}

/** A fixed set of client descriptions that some votes carry. */
export function analyticsProfiles(rng: Random): Analytics[] {
  const out: Analytics[] = []
  for (let i = 0; i < 48; i++) {
    const kind = rng.weighted<string>([
      ['web', 60],
      ['app', 25],
      ['embed', 10],
      ['chatbot', 5],
    ])
    const mobile = kind === 'app' || rng.chance(0.45)
    const os = mobile ? rng.pick(['iOS', 'Android']) : rng.pick(['Windows', 'macOS', 'Linux', 'ChromeOS'])
    const region = rng.pick(UK_REGIONS)
    out.push({
      interface: kind,
      os,
      browser: kind === 'app' ? null : rng.pick(os === 'iOS' ? ['Safari', 'Chrome'] : ['Chrome', 'Firefox', 'Edge', 'Safari']),
      parentUrl: kind === 'embed' ? `https://news.example.com/${rng.pick(['politics', 'local', 'opinion'])}/survey-${i}` : null,
      location: `${rng.pick(region.places)}, ${region.name}`,
    })
  }
  return out
}

/** A collection that held the question when the answer was given, now and then. */
export function collectionFor(rng: Random, memberships: readonly { id: number; createdAt: number }[] | undefined, t: number): number {
  if (!memberships || !rng.chance(0.3)) return 0
  const usable = memberships.filter((m) => m.createdAt <= t)
  return usable.length > 0 ? rng.pick(usable).id : 0
}
