import { insertRows } from './bulk.ts'
import { ACTIVITY_END, DAY, type QuestionPool, type SeedContext } from './context.ts'
import type { Random } from './random.ts'
import type { VotePool } from './votes.ts'

const LINK_SPEC = {
  id: 'int',
  question_id: 'int',
  user_id: 'int',
  link: 'text',
  title: 'text',
  created_at: 'time',
  modified_at: 'time',
} as const

const LINK_VOTE_SPEC = {
  id: 'int',
  link_id: 'int',
  user_id: 'int',
  value: 'int',
  created_at: 'time',
  modified_at: 'time',
} as const

const TAG_VOTE_SPEC = {
  id: 'int',
  question_tag_id: 'int',
  user_id: 'int',
  value: 'int',
  private: 'bool',
  created_at: 'time',
  modified_at: 'time',
} as const

const LINK_KINDS: readonly { title: string; url: (id: number) => string }[] = [
  { title: 'Background briefing', url: (id) => `https://www.example.org/briefings/question-${id}` },
  { title: 'News report', url: (id) => `https://news.example.com/politics/story-${id}` },
  { title: 'Public consultation', url: (id) => `https://consultations.example.org/${id}` },
  { title: 'Research summary', url: (id) => `https://research.example.net/summaries/${id}` },
  { title: '', url: (id) => `https://www.example.com/articles/${id}` },
]

/** `m` distinct voters (row indices) of question q who answered rather than skipped. */
function someVoters(rng: Random, votes: VotePool, q: number, m: number): number[] {
  const rows: number[] = []
  for (let r = votes.start[q]; r < votes.start[q + 1]; r++) if (!votes.skipped[r]) rows.push(r)
  return rng.sample(rows, m)
}

function after(t: number, rng: Random): number {
  return Math.min(ACTIVITY_END, t + rng.int(60, DAY))
}

export interface ExtrasSummary {
  links: number
  linkVotes: number
  tagVotes: number
}

/** Links on some questions (with a few votes on them) and a few votes on the relevance of questions' tags. */
export async function seedQuestionExtras(ctx: SeedContext, questions: QuestionPool, votes: VotePool): Promise<ExtrasSummary> {
  const rng = ctx.rng.stream('question-extras')
  const links: Record<string, unknown>[] = []
  const linkVotes: Record<string, unknown>[] = []
  const tagVotes: Record<string, unknown>[] = []
  for (let q = 0; q < questions.count; q++) {
    const t = questions.createdAt[q]
    if (rng.chance(0.2)) {
      for (const kind of rng.sample(LINK_KINDS, rng.int(1, 2))) {
        const linkId = links.length + 1
        links.push({
          id: linkId,
          question_id: q + 1,
          user_id: questions.author[q],
          link: kind.url(q + 1),
          title: kind.title,
          created_at: t,
          modified_at: t,
        })
        if (!rng.chance(0.3)) continue
        for (const r of someVoters(rng, votes, q, rng.int(1, 6))) {
          const at = after(votes.time[r], rng)
          linkVotes.push({
            id: linkVotes.length + 1,
            link_id: linkId,
            user_id: votes.user[r] + 1,
            value: rng.weighted<number>([
              [1, 10],
              [2, 10],
              [3, 20],
              [4, 30],
              [5, 30],
            ]),
            created_at: at,
            modified_at: at,
          })
        }
      }
    }
    for (let k = 0; k < questions.questionTagCount[q]; k++) {
      if (!rng.chance(0.12)) continue
      const questionTagId = questions.firstQuestionTagId[q] + k
      const fits: readonly (readonly [number, number])[] =
        k === 0
          ? [
              [3, 10],
              [4, 35],
              [5, 55],
            ]
          : [
              [1, 15],
              [2, 20],
              [3, 25],
              [4, 25],
              [5, 15],
            ]
      for (const r of someVoters(rng, votes, q, rng.int(1, 8))) {
        const at = after(votes.time[r], rng)
        tagVotes.push({
          id: tagVotes.length + 1,
          question_tag_id: questionTagId,
          user_id: votes.user[r] + 1,
          value: rng.weighted(fits),
          private: rng.chance(0.05),
          created_at: at,
          modified_at: at,
        })
      }
    }
  }
  const chunkSize = ctx.scale.chunkSize
  await insertRows(ctx.db, 'question_links', LINK_SPEC, links, { chunkSize })
  await insertRows(ctx.db, 'question_link_votes', LINK_VOTE_SPEC, linkVotes, { chunkSize })
  await insertRows(ctx.db, 'question_tag_votes', TAG_VOTE_SPEC, tagVotes, { chunkSize })
  return { links: links.length, linkVotes: linkVotes.length, tagVotes: tagVotes.length }
}
