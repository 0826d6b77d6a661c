import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { fieldError } from '../../core/errors.ts'
import { iso, isoOrNull } from '../../core/time.ts'
import { statisticsColumns } from '../../engines/statistics/statistics-fields.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { toChoice, toQuestionTag } from '../questions/questions.mapper.ts'
import { withFigures } from '../../disclosure/figures.ts'
import { releaseWhole } from '../../disclosure/release.ts'
import { loadPublishedFigures } from '../questions/published-figures.ts'
import { questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import { bucketStarts, cumulative, dayLabel, nextBucket, parseDay, seriesOn } from './buckets.ts'
import { publicStatsRepository } from './public-stats.repository.ts'
import type { AdvancedStats, AdvancedStatsQuery, GeneralStats, QuestionStats } from './public-stats.schemas.ts'

const FIGURES = [...statisticsColumns('direct'), ...statisticsColumns('liquid'), 'polarisation'] as const
type Summary = Awaited<ReturnType<ReturnType<typeof publicStatsRepository>['answerSummaries']>>[number]

/**
 * What everyone sees of who answered and when: while a question holds fewer than k private answers, its counts
 * and times are those of its public answers (current and replaced), as its figures are; from the k-th, all.
 */
function publishedSummary(summary: Summary | undefined, k: number) {
  if (!summary) return { answer_count: 0, private_answer_count: 0, replaced_answer_count: 0, first_answer_at: null, last_answer_at: null }
  const count = { public: summary.answer_count - summary.private_answer_count, private: summary.private_answer_count }
  if (releaseWhole(count, k).withPrivate) {
    const { answer_count, private_answer_count, replaced_answer_count, first_answer_at, last_answer_at } = summary
    return { answer_count, private_answer_count, replaced_answer_count, first_answer_at, last_answer_at }
  }
  return {
    answer_count: count.public,
    private_answer_count: 0,
    replaced_answer_count: summary.public_replaced_answer_count,
    first_answer_at: summary.public_first_answer_at,
    last_answer_at: summary.public_last_answer_at,
  }
}
/** A range of at most this many buckets: about three years of days. */
export const MAX_BUCKETS = 1000

/**
 * A page of questions with their published figures (src/disclosure/figures.ts), their choices' and tags', and
 * answer activity: four batch loads.
 */
export async function questionStatsFromRows(
  db: Kysely<Database>,
  rows: QuestionRow[],
  urls: UrlBuilder,
  k: number,
): Promise<QuestionStats[]> {
  const ids = rows.map((row) => row.id)
  const questions = questionsRepository(db)
  const [choices, tags, summaries, published] = await Promise.all([
    questions.choices(ids),
    questions.questionTags(ids),
    publicStatsRepository(db).answerSummaries(ids),
    loadPublishedFigures(db, ids, k),
  ])
  const summaryOf = new Map(summaries.map((summary) => [summary.question_id, summary]))
  return rows.map((row) => {
    const summary = publishedSummary(summaryOf.get(row.id), k)
    const shown = published.question(row.id)
    const figures = Object.fromEntries(FIGURES.map((name) => [name, shown[name]]))
    return {
      id: row.id,
      url: urls.detail('question_stats', row.id),
      question_url: urls.detail('questions', row.id),
      question: row.question,
      subtype: row.subtype,
      ...figures,
      ...summary,
      first_answer_at: isoOrNull(summary.first_answer_at),
      last_answer_at: isoOrNull(summary.last_answer_at),
      choices: choices
        .filter((choice) => choice.question_id === row.id)
        .map((choice) => toChoice(withFigures(choice, published.choice(choice.id)), urls)),
      tags: tags.filter((tag) => tag.question_id === row.id).map((tag) => toQuestionTag(withFigures(tag, published.questionTag(tag.id)))),
    } as QuestionStats
  })
}

/** The service's totals; its comment votes are a whole whose private votes count from the k-th (releaseWhole). */
export async function generalStats(db: Kysely<Database>, k: number): Promise<GeneralStats> {
  const { generated_at, private_comment_vote_count, ...totals } = await publicStatsRepository(db).totals()
  const commentVotes = { public: totals.comment_vote_count - private_comment_vote_count, private: private_comment_vote_count }
  return {
    ...totals,
    answer_count: totals.question_vote_count + totals.choice_vote_count,
    comment_vote_count: releaseWhole(commentVotes, k).withPrivate ? totals.comment_vote_count : commentVotes.public,
    generated_at: iso(generated_at),
  } as GeneralStats
}

/** Activity over time, one value per calendar bucket (UTC) from the raw rows. */
export async function advancedStats(db: Kysely<Database>, query: AdvancedStatsQuery, today: Date): Promise<AdvancedStats> {
  const interval = query.interval ?? 'day'
  const end = query.end ? parseDay(query.end) : parseDay(dayLabel(today))
  const start = query.start ? parseDay(query.start) : new Date(end.getTime() - 29 * 86_400_000)
  if (start > end) throw fieldError('start', 'Ensure this date is not after end.')
  const starts = bucketStarts(start, end, interval, MAX_BUCKETS)
  if (!starts)
    throw fieldError('interval', `Ensure the range holds at most ${MAX_BUCKETS} intervals; choose a longer interval or a shorter range.`)
  const from = starts[0]
  const to = nextBucket(starts[starts.length - 1], interval)
  const labels = starts.map(dayLabel)
  const repository = publicStatsRepository(db)
  const [usersBefore, newUsers, answers, questions, comments] = await Promise.all([
    repository.activeUsersBefore(from),
    repository.newActiveUsers(interval, from, to),
    repository.answers(interval, from, to),
    repository.newQuestions(interval, from, to),
    repository.newComments(interval, from, to),
  ])
  const newUserSeries = seriesOn(labels, newUsers)
  return {
    results: {
      start: dayLabel(start),
      end: dayLabel(end),
      interval,
      labels,
      data: {
        user_count: cumulative(usersBefore, newUserSeries),
        new_user_count: newUserSeries,
        answer_count: seriesOn(labels, answers),
        answerer_count: seriesOn(
          labels,
          answers.map((row) => ({ bucket: row.bucket, count: row.people })),
        ),
        question_count: seriesOn(labels, questions),
        comment_count: seriesOn(labels, comments),
      },
    },
  }
}
