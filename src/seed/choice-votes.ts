import { insertChunks, insertRows } from './bulk.ts'
import { loadOptions, type CollectionPool, type QuestionPool, type SeedContext, type UserPool } from './context.ts'
import { analyticsProfiles, answerTime, collectionFor, rankByTime, replacementTime, VoterSampler, voterCounts } from './vote-plan.ts'

const CHOICE_VOTE_SPEC = {
  id: 'int',
  choice_id: 'int',
  question_id: 'int',
  user_id: 'int',
  value: 'int',
  skipped: 'bool',
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

const CHOICE_HISTORY_SPEC = {
  id: 'int',
  choice_id: 'int',
  question_id: 'int',
  user_id: 'int',
  value: 'int',
  skipped: 'bool',
  private: 'bool',
  answered_at: 'time',
  replaced_at: 'time',
} as const

/** The chosen option of a multiple-choice question is stored as a vote of 5 on that choice. */
const CHOSEN = 5

export interface ChoiceVoteSummary {
  votes: number
  history: number
}

/**
 * One chosen choice per voter of each multiple-choice question. Choices differ in popularity, and
 * the voter's leaning tilts the pick towards the first or the last options.
 */
export async function seedChoiceVotes(
  ctx: SeedContext,
  users: UserPool,
  questions: QuestionPool,
  collections: CollectionPool,
): Promise<ChoiceVoteSummary> {
  const rng = ctx.rng.stream('choice-votes')
  const mcq: number[] = []
  let likertCount = 0
  for (let q = 0; q < questions.count; q++) {
    if (questions.subtype[q] === 'mcq') mcq.push(q)
    else likertCount++
  }
  const total = Math.round((ctx.scale.votes / Math.max(1, likertCount)) * mcq.length * 0.8)
  const targets = voterCounts(rng, questions, users, mcq, total)
  let capacity = 0
  for (const n of targets.values()) capacity += n

  const choice = new Int32Array(capacity)
  const question = new Int32Array(capacity)
  const user = new Int32Array(capacity)
  const isPrivate = new Uint8Array(capacity)
  const collection = new Int32Array(capacity)
  const analytics = new Int16Array(capacity).fill(-1)
  const created = new Float64Array(capacity)
  const profiles = analyticsProfiles(rng)
  const sampler = new VoterSampler(users)
  const history: Record<string, unknown>[] = []

  let n = 0
  for (const [index, q] of mcq.entries()) {
    if (index % 100 === 0) ctx.progress('planning choice votes', index, mcq.length)
    const target = targets.get(q) ?? 0
    if (target === 0) continue
    const k = questions.choiceCount[q]
    const popularity = Array.from({ length: k }, () => rng.logNormal(0.7))
    const side = rng.chance(0.5) ? 1 : -1
    const open = questions.voteOpen[q]
    const close = questions.voteClose[q]
    for (const u of sampler.draw(rng, target, close)) {
      const tilt = users.lean[u] * side * 1.5
      const weights = popularity.map((w, c) => w * Math.exp(tilt * (c / Math.max(1, k - 1) - 0.5)))
      const picked = rng.weightedIndex(weights)
      let t = answerTime(rng, open, close, users.createdAt[u])
      const priv = users.defaultPrivate[u] === 1 || rng.chance(0.05)
      if (k > 1 && rng.chance(0.03)) {
        // An earlier pick, replaced by the current one.
        const replaced = replacementTime(rng, t, close)
        if (replaced > t) {
          const earlier = (picked + rng.int(1, k - 1)) % k
          history.push({
            id: 0,
            choice_id: questions.firstChoiceId[q] + earlier,
            question_id: q + 1,
            user_id: u + 1,
            value: CHOSEN,
            skipped: false,
            private: priv,
            answered_at: t,
            replaced_at: replaced,
          })
          t = replaced
        }
      }
      choice[n] = questions.firstChoiceId[q] + picked
      question[n] = q
      user[n] = u
      isPrivate[n] = priv ? 1 : 0
      collection[n] = collectionFor(rng, collections.byQuestion.get(q), t)
      if (rng.chance(0.25)) analytics[n] = rng.int(0, profiles.length - 1)
      created[n] = t
      n++
    }
  }

  const { order, idOf } = rankByTime(created, n)
  await insertChunks(
    ctx.db,
    'question_choice_votes',
    CHOICE_VOTE_SPEC,
    n,
    (from, to) => {
      const columns = Object.fromEntries(Object.keys(CHOICE_VOTE_SPEC).map((name) => [name, new Array<unknown>(to - from)]))
      for (let k = 0; k < to - from; k++) {
        const i = order[from + k]
        const a = analytics[i] >= 0 ? profiles[analytics[i]] : null
        columns.id[k] = idOf[i]
        columns.choice_id[k] = choice[i]
        columns.question_id[k] = question[i] + 1
        columns.user_id[k] = user[i] + 1
        columns.value[k] = CHOSEN
        columns.skipped[k] = false
        columns.private[k] = isPrivate[i] === 1
        columns.collection_id[k] = collection[i] || null
        columns.analytics_interface[k] = a?.interface ?? null
        columns.analytics_os[k] = a?.os ?? null
        columns.analytics_browser[k] = a?.browser ?? null
        columns.analytics_parent_url[k] = a?.parentUrl ?? null
        columns.analytics_location[k] = a?.location ?? null
        columns.created_at[k] = created[i]
        columns.modified_at[k] = created[i]
      }
      return columns
    },
    // As the likert answers' load (votes.ts): the disclosure triggers probe (question, person) and the waiting answers.
    {
      ...loadOptions(ctx, 'choice votes', n),
      keep: ['question_choice_votes_one_per_question'],
      analyze: ['unreleased_answers'],
    },
  )

  history.sort((a, b) => (a.replaced_at as number) - (b.replaced_at as number))
  history.forEach((row, i) => (row.id = i + 1))
  await insertRows(ctx.db, 'question_choice_vote_history', CHOICE_HISTORY_SPEC, history, { chunkSize: ctx.scale.chunkSize })
  return { votes: n, history: history.length }
}
