import { iso } from '../../core/time.ts'
import { differencePercent, questionsCounted, quickDifferencePercent, type Distances } from './compare.compute.ts'
import type { CommonAnswerRow, ComparisonFigures, ComparisonRow } from './compare.repository.ts'
import type { ComparedQuestion, LatestCompare, QuickFigures, UserCompare } from './compare.schemas.ts'

/** The quick figures of a histogram: the percent is null below MIN_COMMON_QUESTIONS. */
export function toQuickFigures(distances: Distances): QuickFigures {
  return {
    difference_percent: quickDifferencePercent(distances),
    questions_counted: questionsCounted(distances),
    difference_distances: [...distances],
  }
}

/** What is kept of a comparison: the full percent (null only without common questions); questions_counted says how much it rests on. */
export function toKeptFigures(otherId: number, distances: Distances): ComparisonFigures {
  return { other_id: otherId, questions_counted: questionsCounted(distances), difference_percent: differencePercent(distances), distances }
}

export function toComparedQuestion(row: CommonAnswerRow): ComparedQuestion {
  return {
    question: row.question_id,
    text: row.text,
    subtype: row.subtype,
    distance: row.distance,
    usera: { value: row.a_value, choice: row.a_choice, choice_text: row.a_choice_text },
    userb: { value: row.b_value, choice: row.b_choice, choice_text: row.b_choice_text },
  }
}

export function toUserCompare(row: ComparisonRow): UserCompare {
  return {
    id: row.id,
    user: row.user_id,
    other: row.other_id,
    questions_counted: row.questions_counted,
    difference_percent: row.difference_percent,
    difference_distances: row.difference_distances.map(Number),
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}

export function toLatestCompare(row: ComparisonRow): LatestCompare {
  return {
    user: row.other_id,
    difference_percent: row.difference_percent,
    questions_counted: row.questions_counted,
    difference_distances: row.difference_distances.map(Number),
    modified_at: iso(row.modified_at),
  }
}
