import { insertChunks, insertRows } from './bulk.ts'
import { loadOptions, type CollectionPool, type QuestionPool, type SeedContext, type UserPool } from './context.ts'
import type { Random } from './random.ts'
import { analyticsProfiles, answerTime, collectionFor, rankByTime, replacementTime, VoterSampler, voterCounts } from './vote-plan.ts'

const VOTE_SPEC = {
  id: 'int',
  question_id: 'int',
  user_id: 'int',
  value: 'int',
  skipped: 'bool',
  importance: 'int',
  private: 'bool',
  collection_id: 'int',
  analytics_interface: 'text',
  analytics_os: 'text',
  analytics_browser: 'text',
  analytics_parent_url: 'text',
  analytics_location: 'text',
  created_at: 'time',
  modified_at: 'time',
} as const

const HISTORY_SPEC = {
  id: 'int',
  question_id: 'int',
  user_id: 'int',
  value: 'int',
  skipped: 'bool',
  importance: 'int',
  private: 'bool',
  answered_at: 'time',
  replaced_at: 'time',
} as const

/**
 * How a question's answers fall: consensual ones peak at one level, polarised ones split into two
 * camps at the ends (the voter's leaning picks the camp), lukewarm ones gather around the middle,
 * uniform ones spread evenly.
 */
interface Profile {
  kind: 'consensual' | 'polarised' | 'lukewarm' | 'uniform'
  center: number
  spread: number
  /** How strongly the voter's leaning pulls the answer, and in which direction. */
  pull: number
}

function drawProfile(rng: Random): Profile {
  const side = rng.chance(0.5) ? 1 : -1
  const kind = rng.weighted<Profile['kind']>([
    ['consensual', 35],
    ['polarised', 25],
    ['lukewarm', 25],
    ['uniform', 15],
  ])
  switch (kind) {
    case 'consensual':
      return { kind, center: rng.pick([1.4, 1.9, 4.1, 4.6, 3]), spread: 0.7, pull: 0.35 * side }
    case 'polarised':
      return { kind, center: rng.normal() * 0.3, spread: 0.4, pull: side }
    case 'lukewarm':
      return { kind, center: 3 + rng.normal() * 0.25, spread: 0.85, pull: 0.25 * side }
    default:
      return { kind, center: 3, spread: 0, pull: 0 }
  }
}

function answer(rng: Random, profile: Profile, lean: number): number {
  switch (profile.kind) {
    case 'uniform':
      return rng.int(1, 5)
    case 'polarised': {
      // The camp follows the leaning (with some noise); most of a camp sits at its extreme.
      const camp = profile.pull * lean + profile.center * 0.5 + profile.spread * rng.normal() > 0 ? 1 : -1
      const distance = rng.weighted<number>([
        [2, 70],
        [1, 23],
        [0, 7],
      ])
      return 3 + camp * distance
    }
    default: {
      const x = profile.center + profile.spread * rng.normal() + profile.pull * lean
      return Math.max(1, Math.min(5, Math.round(x)))
    }
  }
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
  const flags = new Uint8Array(capacity) // 1 private, 4 skipped
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
    if (q % 500 === 0) ctx.progress('planning votes', q, questions.count)
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
      importance[n] = rng.chance(0.2)
        ? rng.weighted<number>([
            [1, 5],
            [2, 10],
            [3, 30],
            [4, 30],
            [5, 25],
          ])
        : 0
      flags[n] = (users.defaultPrivate[u] || rng.chance(0.05) ? 1 : 0) | (skip ? 4 : 0)
      collection[n] = collectionFor(rng, collections.byQuestion.get(q), t)
      if (rng.chance(0.25)) analytics[n] = rng.int(0, profiles.length - 1)
      created[n] = t
      modified[n] = t
      if (rng.chance(0.04)) {
        const replaced = replacementTime(rng, t, close)
        if (replaced > t) {
          modified[n] = replaced
          const earlierSkip = !skip && rng.chance(0.1)
          let earlier = earlierSkip ? 0 : rng.int(1, 5)
          if (!earlierSkip && earlier === value[n]) earlier = earlier === 5 ? 4 : earlier + 1
          history.push({
            id: 0,
            question_id: q + 1,
            user_id: u + 1,
            value: earlier === 0 ? null : earlier,
            skipped: earlier === 0,
            importance: importance[n] || null,
            private: (flags[n] & 1) === 1,
            answered_at: t,
            replaced_at: replaced,
          })
        }
      }
      n++
    }
  }
  start[questions.count] = n
  ctx.progress('planning votes', questions.count, questions.count)

  const { order, idOf } = rankByTime(created, n)
  await insertChunks(
    ctx.db,
    'question_votes',
    VOTE_SPEC,
    n,
    (from, to) => {
      const columns = Object.fromEntries(Object.keys(VOTE_SPEC).map((name) => [name, new Array<unknown>(to - from)]))
      for (let k = 0; k < to - from; k++) {
        const i = order[from + k]
        const a = analytics[i] >= 0 ? profiles[analytics[i]] : null
        columns.id[k] = idOf[i]
        columns.question_id[k] = question[i] + 1
        columns.user_id[k] = user[i] + 1
        columns.value[k] = value[i] === 0 ? null : value[i]
        columns.skipped[k] = (flags[i] & 4) === 4
        columns.importance[k] = importance[i] || null
        columns.private[k] = (flags[i] & 1) === 1
        columns.collection_id[k] = collection[i] || null
        columns.analytics_interface[k] = a?.interface ?? null
        columns.analytics_os[k] = a?.os ?? null
        columns.analytics_browser[k] = a?.browser ?? null
        columns.analytics_parent_url[k] = a?.parentUrl ?? null
        columns.analytics_location[k] = a?.location ?? null
        columns.created_at[k] = created[i]
        columns.modified_at[k] = modified[i]
      }
      return columns
    },
    // A private answer's disclosure triggers (migration 043) look each answer up by (person, question), and keep
    // the answers waiting for their batch.
    { ...loadOptions(ctx, 'votes', n), keep: ['question_votes_unique'], analyze: ['unreleased_answers'] },
  )

  history.sort((a, b) => (a.replaced_at as number) - (b.replaced_at as number))
  history.forEach((row, i) => (row.id = i + 1))
  await insertRows(ctx.db, 'question_vote_history', HISTORY_SPEC, history, loadOptions(ctx, 'vote history', history.length))

  const skipped = new Uint8Array(n)
  for (let i = 0; i < n; i++) skipped[i] = flags[i] & 4 ? 1 : 0
  return {
    pool: { count: n, start, user: user.subarray(0, n), time: created.subarray(0, n), skipped, idOf },
    history: history.length,
  }
}
