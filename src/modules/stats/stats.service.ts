import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { fieldError } from '../../http/errors.ts'
import { iso, isoOrNull } from '../../http/schemas.ts'
import { statisticsColumns } from '../statistics/statistics.schemas.ts'
import type { UrlBuilder } from '../../http/urls.ts'
import { toChoice, toQuestionTag } from '../questions/questions.mapper.ts'
import { questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import { bucketStarts, cumulative, dayLabel, nextBucket, parseDay, seriesOn } from './buckets.ts'
import { statsRepository } from './stats.repository.ts'
import type { AdvancedStats, AdvancedStatsQuery, GeneralStats, QuestionStats } from './stats.schemas.ts'

const FIGURES = [...statisticsColumns('direct'), ...statisticsColumns('liquid'), 'polarisation'] as const
/** A range of at most this many buckets: about three years of days. */
export const MAX_BUCKETS = 1000

/** A page of questions with their figures, their choices' and tags', and answer activity: four batch loads. */
export async function questionStatsFromRows(db: Kysely<Database>, rows: QuestionRow[], urls: UrlBuilder): Promise<QuestionStats[]> {
  const ids = rows.map((row) => row.id)
  const questions = questionsRepository(db)
  const [choices, tags, summaries] = await Promise.all([
    questions.choices(ids),
    questions.questionTags(ids),
    statsRepository(db).answerSummaries(ids),
  ])
  const summaryOf = new Map(summaries.map((summary) => [summary.question_id, summary]))
  return rows.map((row) => {
    const summary = summaryOf.get(row.id)
    const figures = Object.fromEntries(FIGURES.map((name) => [name, (row as Record<string, unknown>)[name]]))
    return {
      id: row.id,
      url: urls.detail('question_stats', row.id),
      question_url: urls.detail('questions', row.id),
      question: row.question,
      subtype: row.subtype,
      ...figures,
      answer_count: summary?.answer_count ?? 0,
      private_answer_count: summary?.private_answer_count ?? 0,
      replaced_answer_count: summary?.replaced_answer_count ?? 0,
      first_answer_at: isoOrNull(summary?.first_answer_at),
      last_answer_at: isoOrNull(summary?.last_answer_at),
      choices: choices.filter((choice) => choice.question_id === row.id).map((choice) => toChoice(choice, urls)),
      tags: tags.filter((tag) => tag.question_id === row.id).map(toQuestionTag),
    } as QuestionStats
  })
}

export async function generalStats(db: Kysely<Database>): Promise<GeneralStats> {
  const { generated_at, ...totals } = await statsRepository(db).totals()
  return { ...totals, answer_count: totals.question_vote_count + totals.choice_vote_count, generated_at: iso(generated_at) } as GeneralStats
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
  const repository = statsRepository(db)
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
