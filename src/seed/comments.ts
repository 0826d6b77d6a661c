import { insertRows } from './bulk.ts'
import { ACTIVITY_END, DAY, loadOptions, usersSignedUpBy, type QuestionPool, type SeedContext, type UserPool } from './context.ts'
import type { Random } from './random.ts'
import { commentText, replyText } from './text.ts'
import { answerTime, rankByTime } from './vote-plan.ts'
import type { VotePool } from './votes.ts'

const COMMENT_SPEC = {
  id: 'int',
  question_id: 'int',
  user_id: 'int',
  parent_id: 'int',
  text: 'text',
  subtype: 'text',
  is_hidden: 'bool',
  created_at: 'time',
  modified_at: 'time',
} as const

const COMMENT_VOTE_SPEC = {
  id: 'int',
  comment_id: 'int',
  user_id: 'int',
  value: 'int',
  private: 'bool',
  active: 'bool',
  created_at: 'time',
  modified_at: 'time',
} as const

const REPORT_SPEC = { id: 'int', comment_id: 'int', user_id: 'int', reason: 'text', created_at: 'time' } as const

const VOTE_COMMENT_SPEC = { id: 'int', vote_id: 'int', comment_id: 'int', created_at: 'time' } as const

type Subtype = 'info' | 'reason' | 'suggestion'

interface DraftComment {
  question: number
  user: number
  parent: number
  text: string
  subtype: Subtype
  hidden: boolean
  time: number
  /** The question vote row it explains, -1 when none. */
  voteRow: number
}

export interface CommentSummary {
  comments: number
  commentVotes: number
  reports: number
  voteComments: number
}

function later(rng: Random, t: number, mean: number): number {
  return Math.min(ACTIVITY_END, t + 60 + Math.floor(rng.exponential(mean)))
}

function draftComments(ctx: SeedContext, rng: Random, users: UserPool, questions: QuestionPool, votes: VotePool) {
  const drafts: DraftComment[] = []
  const rate = ctx.scale.commentRate
  let likert = 0
  for (let q = 0; q < questions.count; q++) if (questions.subtype[q] === 'likert') likert++
  const meanVoters = votes.count / Math.max(1, likert)
  for (let q = 0; q < questions.count; q++) {
    if (q % 500 === 0) ctx.progress('planning comments', q, questions.count)
    const open = questions.voteOpen[q]
    const close = questions.voteClose[q]
    if (close <= open) continue
    const voters = votes.start[q + 1] - votes.start[q]
    const expected = (questions.subtype[q] === 'mcq' ? meanVoters * 0.5 : voters) * rate
    const first = drafts.length
    for (let k = rng.poisson(expected); k > 0; k--) {
      const subtype = rng.weighted<Subtype>([
        ['reason', 55],
        ['info', 25],
        ['suggestion', 20],
      ])
      const hidden = rng.chance(0.01)
      const subject = questions.subjects[questions.topic[q]]
      if (drafts.length > first && rng.chance(0.25)) {
        const parent = rng.int(first, drafts.length - 1)
        // A reply always comes after its parent, even when the parent was written at the very end.
        const time = Math.max(later(rng, drafts[parent].time, 2 * DAY), drafts[parent].time + 60)
        const user = rng.int(0, usersSignedUpBy(users, time) - 1)
        drafts.push({ question: q, user, parent, text: replyText(rng), subtype, hidden, time, voteRow: -1 })
      } else if (voters > 0 && rng.chance(0.75)) {
        const row = votes.start[q] + rng.int(0, voters - 1)
        const explains = subtype === 'reason' && !votes.skipped[row] && rng.chance(0.45)
        drafts.push({
          question: q,
          user: votes.user[row],
          parent: -1,
          text: commentText(rng, subtype, subject),
          subtype,
          hidden,
          time: later(rng, votes.time[row], DAY / 2),
          voteRow: explains ? row : -1,
        })
      } else {
        const signedUp = usersSignedUpBy(users, close - 3600)
        const user = rng.int(0, Math.max(0, signedUp - 1))
        const time = answerTime(rng, open, close, users.createdAt[user])
        const text = commentText(rng, subtype, subject)
        drafts.push({ question: q, user, parent: -1, text, subtype, hidden, time, voteRow: -1 })
      }
    }
  }
  return drafts
}

export async function seedComments(ctx: SeedContext, users: UserPool, questions: QuestionPool, votes: VotePool): Promise<CommentSummary> {
  const rng = ctx.rng.stream('comments')
  const drafts = draftComments(ctx, rng, users, questions, votes)
  const times = new Float64Array(drafts.length)
  drafts.forEach((d, i) => (times[i] = d.time))
  const { order, idOf } = rankByTime(times, drafts.length)

  const comments: Record<string, unknown>[] = []
  const commentVotes: Record<string, unknown>[] = []
  const reports: Record<string, unknown>[] = []
  const voteComments: Record<string, unknown>[] = []
  const meanVotes = ctx.scale.users < 100 ? 1.5 : 2.5
  for (const i of order) {
    const d = drafts[i]
    const id = idOf[i]
    comments.push({
      id,
      question_id: d.question + 1,
      user_id: d.user + 1,
      parent_id: d.parent >= 0 ? idOf[d.parent] : null,
      text: d.text,
      subtype: d.subtype,
      is_hidden: d.hidden,
      created_at: d.time,
      modified_at: d.time,
    })
    if (d.voteRow >= 0) {
      voteComments.push({ id: voteComments.length + 1, vote_id: votes.idOf[d.voteRow], comment_id: id, created_at: d.time })
    }
    const voterPool = usersSignedUpBy(users, Math.min(ACTIVITY_END, d.time + 3 * DAY))
    for (const u of rng.distinctInts(voterPool, rng.poisson(meanVotes))) {
      if (u === d.user) continue
      const up = rng.chance(0.7)
      const at = later(rng, Math.max(d.time, users.createdAt[u]), 3 * DAY)
      const row = { comment_id: id, user_id: u + 1, private: rng.chance(0.05), created_at: at, modified_at: at }
      if (rng.chance(0.06)) {
        // A vote the user changed: the superseded one stays, inactive.
        const changed = later(rng, at, 2 * DAY)
        const superseded = { ...row, value: up ? 1 : 5, active: false, modified_at: changed }
        commentVotes.push({ ...superseded, id: commentVotes.length + 1 })
        const current = { ...row, value: up ? 5 : 1, active: true, created_at: changed, modified_at: changed }
        commentVotes.push({ ...current, id: commentVotes.length + 1 })
      } else {
        commentVotes.push({ ...row, id: commentVotes.length + 1, value: up ? 5 : 1, active: true })
      }
    }
    const reporters = d.hidden ? rng.int(2, 4) : rng.chance(0.005) ? 1 : 0
    for (const u of rng.distinctInts(voterPool, reporters)) {
      if (u === d.user) continue
      reports.push({
        id: reports.length + 1,
        comment_id: id,
        user_id: u + 1,
        reason: rng.pick(['Offensive', 'Spam', 'Off topic', 'Misleading', '']),
        created_at: later(rng, Math.max(d.time, users.createdAt[u]), DAY),
      })
    }
  }
  const chunkSize = ctx.scale.chunkSize
  await insertRows(ctx.db, 'comments', COMMENT_SPEC, comments, loadOptions(ctx, 'comments', comments.length))
  const voteOptions = loadOptions(ctx, 'comment votes', commentVotes.length)
  await insertRows(ctx.db, 'comment_votes', COMMENT_VOTE_SPEC, commentVotes, voteOptions)
  await insertRows(ctx.db, 'comment_reports', REPORT_SPEC, reports, { chunkSize })
  await insertRows(ctx.db, 'vote_comments', VOTE_COMMENT_SPEC, voteComments, { chunkSize })
  return {
    comments: comments.length,
    commentVotes: commentVotes.length,
    reports: reports.length,
    voteComments: voteComments.length,
  }
}
