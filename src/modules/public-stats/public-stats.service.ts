import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { fieldError } from '../../core/errors.ts'
import { iso, isoOrNull } from '../../core/time.ts'
import { statisticsColumns } from '../../engines/statistics/statistics-fields.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { toChoice, toQuestionTag } from '../questions/questions.mapper.ts'
import { withFigures } from '../../disclosure/figures.ts'
import { releaseSiblings, releaseWhole, shownCount } from '../../disclosure/release.ts'
import { loadPublishedFigures } from '../questions/published-figures.ts'
import { questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import { commentsRepository } from '../comments/comments.repository.ts'
import { bucketStarts, cumulative, dayLabel, nextBucket, parseDay, seriesOn } from './buckets.ts'
import { publicStatsRepository, type AnswerBucket } from './public-stats.repository.ts'
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

/**
 * The service's answers as a whole, whose private answers count from the k-th (rule 1), cut two ways into siblings
 * under it: likert and choice answers, and skips and the rest. Each count is always shown, so only which private
 * answers count is taken from the rules: a part counts its own from its k-th, and never leaves 1 to k-1 of them
 * between the whole and the parts.
 */
function publishedAnswerTotals(totals: Record<string, number>, privately: { likert: number; choice: number; skips: number }, k: number) {
  const part = (count: number, privateCount: number) => ({ public: count - privateCount, private: privateCount })
  const likert = part(totals.question_vote_count, privately.likert)
  const choice = part(totals.choice_vote_count, privately.choice)
  const skips = part(totals.skip_count, privately.skips)
  const all = { public: likert.public + choice.public, private: likert.private + choice.private }
  const rest = { public: all.public - skips.public, private: all.private - skips.private }
  const whole = { count: all, release: releaseWhole(all, k) }
  const [likertRelease, choiceRelease] = releaseSiblings([likert, choice], k, whole)
  const [skipRelease] = releaseSiblings([skips, rest], k, whole)
  return {
    answer_count: shownCount(all, whole.release),
    question_vote_count: shownCount(likert, likertRelease),
    choice_vote_count: shownCount(choice, choiceRelease),
    skip_count: shownCount(skips, skipRelease),
  }
}

/** The service's totals; its comment votes as the comments' tallies publish them (in batches, migration 042). */
export async function generalStats(db: Kysely<Database>, k: number): Promise<GeneralStats> {
  const { generated_at, private_question_vote_count, private_choice_vote_count, private_skip_count, ...totals } =
    await publicStatsRepository(db).totals()
  return {
    ...totals,
    ...publishedAnswerTotals(
      totals,
      { likert: private_question_vote_count, choice: private_choice_vote_count, skips: private_skip_count },
      k,
    ),
    comment_vote_count: await commentsRepository(db).publishedVoteCount(),
    generated_at: iso(generated_at),
  } as GeneralStats
}

/**
 * A bucket's answers and answerers as published. Answers: each UTC day is a whole whose private answers count from
 * its k-th, and a week or month is the sum of its days, so no interval leaves 1 to k-1 private answers between it and
 * another. Answerers: the bucket's people, whose private answers count from the k-th person with one; until then,
 * the people with a public answer there.
 */
function publishedAnswers(row: AnswerBucket, k: number) {
  const count = row.public_counts.reduce((sum, publicCount, i) => {
    const day = { public: publicCount, private: row.private_counts[i] }
    return sum + shownCount(day, releaseWhole(day, k))
  }, 0)
  const people = releaseWhole({ public: row.public_people, private: row.private_people }, k).withPrivate ? row.people : row.public_people
  return { bucket: row.bucket, count, people }
}

/** Activity over time, one value per calendar bucket (UTC) from the raw rows; answers and answerers as published. */
export async function advancedStats(db: Kysely<Database>, query: AdvancedStatsQuery, today: Date, k: number): Promise<AdvancedStats> {
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
  const [usersBefore, newUsers, answerBuckets, questions, comments] = await Promise.all([
    repository.activeUsersBefore(from),
    repository.newActiveUsers(interval, from, to),
    repository.answers(interval, from, to),
    repository.newQuestions(interval, from, to),
    repository.newComments(interval, from, to),
  ])
  const newUserSeries = seriesOn(labels, newUsers)
  const answers = answerBuckets.map((row) => publishedAnswers(row, k))
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
