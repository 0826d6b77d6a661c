/**
 * A question's own figures as everyone sees them (docs/statistics.md, Published figures of a question). Pure: the
 * caller reads, in one statement, the stored counts of the questions, their choices and their question-tags, and
 * at most k private answers of each question (and k private tag votes of each question-tag), and while they are
 * withheld, the liquid weight they took from others' answers when cast (put back: `LiquidRestore`).
 *
 * A question is a whole (release.ts, `releaseWhole`): its figures are always shown, and count its private answers
 * only once it holds k of them. Below that, the private answers read are exactly all of them, so taking them off
 * the stored counts leaves the figures of the public answers alone; the figures are then derived from those counts
 * by the same function that stores them, so a question without private answers shows its stored figures to the bit.
 * A question-tag's figures count tag votes, not answers: the same rule applies to its own private tag votes.
 */
import { emptyFamily, storedColumns, type FamilyTally, type Tally } from '../engines/statistics/tally.ts'
import { releaseWhole } from './release.ts'

/** The stored counts of one row that carries figures: a question, a choice or a question-tag. */
export interface StoredCounts {
  id: number
  tally: Tally
}

/** A private answer as it counts in its question's stored figures. */
export interface PrivateAnswer {
  question_id: number
  /** The chosen choice, whose figures count it; null for a likert answer, counted in the question's. */
  choice_id: number | null
  /** Null for a skip. */
  value: number | null
  /** What it carries in the liquid family: 1 (its author's delegators count nowhere, docs/liquid-democracy.md R6). */
  liquid_weight: number
}

/**
 * Liquid weight a withheld private answer took from another answer when it was cast: its author's block, which
 * counts there again while the answer is withheld (migration 038, withheld_restores).
 */
export interface LiquidRestore {
  question_id: number
  /** The answer the block counts at without the private one: its choice, or null for a likert answer. */
  choice_id: number | null
  value: number | null
  amount: number
}

export interface PrivateTagVote {
  question_tag_id: number
  value: number
}

export interface FigureSources {
  questions: StoredCounts[]
  choices: StoredCounts[]
  questionTags: StoredCounts[]
  /** At most k private answers per question. */
  answers: PrivateAnswer[]
  /** Only for questions whose private answers are withheld. */
  restores: LiquidRestore[]
  /** At most k private tag votes per question-tag. */
  tagVotes: PrivateTagVote[]
}

export type Figures = Record<string, number>

/** Takes an answer's weight off a family; never below zero (the counts and answers come from one snapshot). */
function without(family: FamilyTally, value: number | null, weight: number): FamilyTally {
  const counts = [...family.counts] as FamilyTally['counts']
  let skipped = family.skipped
  if (value === null) skipped = Math.max(0, skipped - weight)
  else if (value >= 1 && value <= 5) counts[value - 1] = Math.max(0, counts[value - 1] - weight)
  return { counts, skipped }
}

function withoutAll(tally: Tally, answers: { value: number | null; liquid_weight: number }[], restores: LiquidRestore[] = []): Tally {
  let { direct, liquid } = tally
  for (const answer of answers) {
    direct = without(direct, answer.value, 1)
    if (liquid) liquid = without(liquid, answer.value, answer.liquid_weight)
  }
  for (const restore of restores) if (liquid) liquid = without(liquid, restore.value, -restore.amount)
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
  private readonly withheldCount = new Map<number, number>()

  constructor(sources: FigureSources, k: number) {
    const withheld = new Map<number, PrivateAnswer[]>()
    for (const [questionId, answers] of groupBy(sources.answers, (answer) => answer.question_id)) {
      if (releaseWhole({ public: 0, private: answers.length }, k).withPrivate) continue
      withheld.set(questionId, answers)
      this.withheldCount.set(questionId, answers.length)
    }
    const withheldAnswers = [...withheld.values()].flat()
    const likert = groupBy(
      withheldAnswers.filter((answer) => answer.choice_id === null),
      (answer) => answer.question_id,
    )
    const chosen = groupBy(
      withheldAnswers.filter((answer) => answer.choice_id !== null),
      (answer) => answer.choice_id!,
    )
    const tagVotes = groupBy(sources.tagVotes, (vote) => vote.question_tag_id)
    const likertRestores = groupBy(
      sources.restores.filter((restore) => restore.choice_id === null),
      (restore) => restore.question_id,
    )
    const choiceRestores = groupBy(
      sources.restores.filter((restore) => restore.choice_id !== null),
      (restore) => restore.choice_id!,
    )
    for (const row of sources.questions)
      this.questions.set(row.id, storedColumns(withoutAll(row.tally, likert.get(row.id) ?? [], likertRestores.get(row.id))))
    for (const row of sources.choices)
      this.choices.set(row.id, storedColumns(withoutAll(row.tally, chosen.get(row.id) ?? [], choiceRestores.get(row.id))))
    for (const row of sources.questionTags) {
      const votes = tagVotes.get(row.id) ?? []
      const kept = releaseWhole({ public: 0, private: votes.length }, k).withPrivate ? [] : votes
      const tally = withoutAll(
        row.tally,
        kept.map((vote) => ({ value: vote.value, liquid_weight: 0 })),
      )
      this.questionTags.set(row.id, storedColumns({ direct: tally.direct, liquid: null }))
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

  /** How many private answers of the question its figures leave out: 0 once it holds k. */
  withheld(questionId: number): number {
    return this.withheldCount.get(questionId) ?? 0
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
