/**
 * A question's own figures as everyone sees them (docs/statistics.md, Published figures of a question). Pure: the
 * caller reads, in one statement, the stored counts of the questions, their choices and their question-tags, the
 * corrections of each question's unreleased private answers, and at most k private tag votes of each question-tag.
 *
 * A question's private answers reach its figures in batches of k (docs/privacy.md, Batches; migration 038): the
 * stored counts follow every answer at once, and the corrections take off what has not been released yet and put
 * back what was (level by level, in both families), so the figures change only with public answers and with whole
 * batches. The figures are then derived from those counts by the same function that stores them, so a question
 * with nothing unreleased shows its stored figures to the bit.
 * A question-tag's figures count tag votes, not answers: its private tag votes count once it holds k of them
 * (release.ts, `releaseWhole`).
 */
import { emptyFamily, storedColumns, type FamilyTally, type Tally } from '../engines/statistics/tally.ts'
import { releaseWhole } from './release.ts'

/** The stored counts of one row that carries figures: a question, a choice or a question-tag. */
export interface StoredCounts {
  id: number
  tally: Tally
}

/** What to add to the stored counts of one level of a question (choice_id null) or of a choice to publish them. */
export interface Correction {
  question_id: number
  choice_id: number | null
  /** Null for skips. */
  value: number | null
  direct: number
  liquid: number
}

export interface PrivateTagVote {
  question_tag_id: number
  value: number
}

export interface FigureSources {
  questions: StoredCounts[]
  choices: StoredCounts[]
  questionTags: StoredCounts[]
  /** Only for questions with unreleased private answers. */
  corrections: Correction[]
  /** At most k private tag votes per question-tag. */
  tagVotes: PrivateTagVote[]
}

export type Figures = Record<string, number>

/** Adds to one level of a family; never below zero (the counts and corrections come from one snapshot). */
function plus(family: FamilyTally, value: number | null, amount: number): FamilyTally {
  const counts = [...family.counts] as FamilyTally['counts']
  let skipped = family.skipped
  if (value === null) skipped = Math.max(0, skipped + amount)
  else if (value >= 1 && value <= 5) counts[value - 1] = Math.max(0, counts[value - 1] + amount)
  return { counts, skipped }
}

function corrected(tally: Tally, corrections: Correction[] = []): Tally {
  let { direct, liquid } = tally
  for (const correction of corrections) {
    if (correction.direct !== 0) direct = plus(direct, correction.value, correction.direct)
    if (liquid && correction.liquid !== 0) liquid = plus(liquid, correction.value, correction.liquid)
  }
  return { direct, liquid }
}

function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>()
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item])
  return out
}

/** Published figures of a page of questions, their choices and their question-tags. */
export class PublishedFigures {
  private readonly questions = new Map<number, Figures>()
  private readonly choices = new Map<number, Figures>()
  private readonly questionTags = new Map<number, Figures>()

  constructor(sources: FigureSources, k: number) {
    const likert = groupBy(
      sources.corrections.filter((correction) => correction.choice_id === null),
      (correction) => correction.question_id,
    )
    const chosen = groupBy(
      sources.corrections.filter((correction) => correction.choice_id !== null),
      (correction) => correction.choice_id!,
    )
    const tagVotes = groupBy(sources.tagVotes, (vote) => vote.question_tag_id)
    for (const row of sources.questions) this.questions.set(row.id, storedColumns(corrected(row.tally, likert.get(row.id))))
    for (const row of sources.choices) this.choices.set(row.id, storedColumns(corrected(row.tally, chosen.get(row.id))))
    for (const row of sources.questionTags) {
      const votes = tagVotes.get(row.id) ?? []
      const kept = releaseWhole({ public: 0, private: votes.length }, k).withPrivate ? [] : votes
      const tally = corrected(
        { direct: row.tally.direct, liquid: null },
        kept.map((vote) => ({ question_id: 0, choice_id: null, value: vote.value, direct: -1, liquid: 0 })),
      )
      this.questionTags.set(row.id, storedColumns(tally))
    }
  }

  /** The published figures of a question (both families and polarisation); a question not read has none yet. */
  question(id: number): Figures {
    return this.questions.get(id) ?? EMPTY_LIQUID
  }

  choice(id: number): Figures {
    return this.choices.get(id) ?? EMPTY_LIQUID
  }

  questionTag(id: number): Figures {
    return this.questionTags.get(id) ?? EMPTY_DIRECT
  }
}

const EMPTY_LIQUID: Figures = Object.freeze(storedColumns({ direct: emptyFamily(), liquid: emptyFamily() }))
const EMPTY_DIRECT: Figures = Object.freeze(storedColumns({ direct: emptyFamily(), liquid: null }))

/** The row with its figure fields replaced by the published ones; only the fields the row has. */
export function withFigures<R extends object>(row: R, figures: Figures): R {
  const out = { ...row } as Record<string, unknown>
  for (const name of Object.keys(figures)) if (name in out) out[name] = figures[name]
  return out as R
}
