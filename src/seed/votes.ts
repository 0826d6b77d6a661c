import { insertChunks, insertRows, withoutKeysAndIndexes } from './bulk.ts'
import type { CollectionPool, QuestionPool, SeedContext, UserPool } from './context.ts'
import type { Random } from './random.ts'
import {
  analyticsProfiles, answerTime, collectionFor, rankByTime, replacementTime, VoterSampler, voterCounts,
} from './vote-plan.ts'

const VOTE_SPEC = {
  id: 'int', question_id: 'int', user_id: 'int', value: 'int', skipped: 'bool', importance: 'int', private: 'bool',
  collection_id: 'int', analytics_interface: 'text', analytics_os: 'text', analytics_browser: 'text',
  analytics_parent_url: 'text', analytics_location: 'text', created_at: 'time', modified_at: 'time',
} as const

const HISTORY_SPEC = {
  id: 'int', question_id: 'int', user_id: 'int', value: 'int', skipped: 'bool', importance: 'int', private: 'bool',
  answered_at: 'time', replaced_at: 'time',
} as const

/**
 * How a question's answers fall: consensual ones peak at one level, polarised ones split by the
 * voters' leaning towards both ends, lukewarm ones gather around the middle, uniform ones spread evenly.
 */
interface Profile {
  uniform: boolean
  center: number
  spread: number
  /** How strongly the voter's leaning pulls the answer, and in which direction. */
  pull: number
}

function drawProfile(rng: Random): Profile {
  const side = rng.chance(0.5) ? 1 : -1
  switch (rng.weighted<string>([['consensual', 35], ['polarised', 25], ['lukewarm', 25], ['uniform', 15]])) {
    case 'consensual':
      return { uniform: false, center: rng.pick([1.4, 1.9, 4.1, 4.6, 3]), spread: 0.75, pull: 0.35 * side }
    case 'polarised':
      return { uniform: false, center: 3 + rng.normal() * 0.3, spread: 0.6, pull: 3 * side }
    case 'lukewarm':
      return { uniform: false, center: 3 + rng.normal() * 0.25, spread: 0.85, pull: 0.25 * side }
    default:
      return { uniform: true, center: 3, spread: 0, pull: 0 }
  }
}

function answer(rng: Random, profile: Profile, lean: number): number {
  if (profile.uniform) return rng.int(1, 5)
  const x = profile.center + profile.spread * rng.normal() + profile.pull * lean
  return Math.max(1, Math.min(5, Math.round(x)))
}

/** Question votes as later stages need them: rows grouped by question, `start[q]..start[q+1]`. */
export interface VotePool {
  count: number
  start: Int32Array
  user: Int32Array
  time: Float64Array
  skipped: Uint8Array
  idOf: Int32Array
}

export interface VoteSummary {
  pool: VotePool
  history: number
}

export async function seedQuestionVotes(
  ctx: SeedContext,
  users: UserPool,
  questions: QuestionPool,
  collections: CollectionPool,
): Promise<VoteSummary> {
  const rng = ctx.rng.stream('question-votes')
  const likert: number[] = []
  for (let q = 0; q < questions.count; q++) if (questions.subtype[q] === 'likert') likert.push(q)
  const targets = voterCounts(rng, questions, users, likert, ctx.scale.votes)
  let capacity = 0
  for (const n of targets.values()) capacity += n

  const question = new Int32Array(capacity)
  const user = new Int32Array(capacity)
  const value = new Int8Array(capacity)
  const importance = new Int8Array(capacity)
  const flags = new Uint8Array(capacity) // 1 private, 2 replaced an earlier answer, 4 skipped
  const collection = new Int32Array(capacity)
  const analytics = new Int16Array(capacity).fill(-1)
  const created = new Float64Array(capacity)
  const modified = new Float64Array(capacity)
  const start = new Int32Array(questions.count + 1)
  const profiles = analyticsProfiles(rng)
  const sampler = new VoterSampler(users)
  const history: Record<string, unknown>[] = []

  let n = 0
  for (let q = 0; q < questions.count; q++) {
    start[q] = n
    const target = targets.get(q) ?? 0
    if (target === 0) continue
    const profile = drawProfile(rng)
    const open = questions.voteOpen[q]
    const close = questions.voteClose[q]
    for (const u of sampler.draw(rng, target, close)) {
      const t = answerTime(rng, open, close, users.createdAt[u])
      const skip = rng.chance(0.03)
      question[n] = q
      user[n] = u
      value[n] = skip ? 0 : answer(rng, profile, users.lean[u])
      importance[n] = rng.chance(0.2) ? rng.weighted<number>([[1, 5], [2, 10], [3, 30], [4, 30], [5, 25]]) : 0
      flags[n] = (users.defaultPrivate[u] || rng.chance(0.05) ? 1 : 0) | (skip ? 4 : 0)
      collection[n] = collectionFor(rng, collections.byQuestion.get(q), t)
      if (rng.chance(0.25)) analytics[n] = rng.int(0, profiles.length - 1)
      created[n] = t
      modified[n] = t
      if (rng.chance(0.04)) {
        const replaced = replacementTime(rng, t, close)
        if (replaced > t) {
          modified[n] = replaced
          flags[n] |= 2
          const earlierSkip = !skip && rng.chance(0.1)
          let earlier = earlierSkip ? 0 : rng.int(1, 5)
          if (!earlierSkip && earlier === value[n]) earlier = earlier === 5 ? 4 : earlier + 1
          history.push({
            id: 0, question_id: q + 1, user_id: u + 1, value: earlier === 0 ? null : earlier, skipped: earlier === 0,
            importance: importance[n] || null, private: (flags[n] & 1) === 1, answered_at: t, replaced_at: replaced,
          })
        }
      }
      n++
    }
  }
  start[questions.count] = n
  ctx.progress('votes', 0, n)

  const { order, idOf } = rankByTime(created, n)
  await withoutKeysAndIndexes(ctx.db, 'question_votes', () => insertChunks(ctx.db, 'question_votes', VOTE_SPEC, n, (from, to) => {
    const rows = Array.from(order.subarray(from, to))
    const profile = (i: number) => (analytics[i] >= 0 ? profiles[analytics[i]] : null)
    return {
      id: rows.map((i) => idOf[i]),
      question_id: rows.map((i) => question[i] + 1),
      user_id: rows.map((i) => user[i] + 1),
      value: rows.map((i) => (value[i] === 0 ? null : value[i])),
      skipped: rows.map((i) => (flags[i] & 4) === 4),
      importance: rows.map((i) => importance[i] || null),
      private: rows.map((i) => (flags[i] & 1) === 1),
      collection_id: rows.map((i) => collection[i] || null),
      analytics_interface: rows.map((i) => profile(i)?.interface ?? null),
      analytics_os: rows.map((i) => profile(i)?.os ?? null),
      analytics_browser: rows.map((i) => profile(i)?.browser ?? null),
      analytics_parent_url: rows.map((i) => profile(i)?.parentUrl ?? null),
      analytics_location: rows.map((i) => profile(i)?.location ?? null),
      created_at: rows.map((i) => created[i]),
      modified_at: rows.map((i) => modified[i]),
    }
  }, { chunkSize: ctx.scale.chunkSize, onChunk: (done) => ctx.progress('votes', done, n) }))

  history.sort((a, b) => (a.replaced_at as number) - (b.replaced_at as number))
  history.forEach((row, i) => (row.id = i + 1))
  await insertRows(ctx.db, 'question_vote_history', HISTORY_SPEC, history, { chunkSize: ctx.scale.chunkSize })

  const skipped = new Uint8Array(n)
  for (let i = 0; i < n; i++) skipped[i] = flags[i] & 4 ? 1 : 0
  return {
    pool: { count: n, start, user: user.subarray(0, n), time: created.subarray(0, n), skipped, idOf },
    history: history.length,
  }
}
