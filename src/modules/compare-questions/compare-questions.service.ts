import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../http/authentication.ts'
import { fieldError, NotFound } from '../../http/errors.ts'
import { canSee } from '../questions/question-access.ts'
import { LEVEL_NAMES } from '../statistics/compute/likert.ts'
import { cramersV, kendallTauB } from '../statistics/compute/rank-correlation.ts'
import { compareQuestionsRepository, type ChoiceRow, type ComparedQuestionRow, type CrossTabRow } from './compare-questions.repository.ts'
import type { QuestionComparison } from './compare-questions.schemas.ts'

/**
 * compare_questions: how the answers of the people who answered both questions relate. Three statements: the two
 * questions, their choices (only when one is multiple choice), and the cross-tabulation; the figures are the pure
 * arithmetic of statistics/compute/rank-correlation.ts over the table.
 */

interface Category {
  value: number | null
  choice: number | null
  label: string
}

const isChoice = (question: ComparedQuestionRow) => question.subtype === 'mcq'

/** A question's categories in order: the five levels, or its choices (store order). */
function categoriesOf(question: ComparedQuestionRow, choices: ChoiceRow[]): Category[] {
  if (isChoice(question))
    return choices
      .filter((choice) => choice.question_id === question.id)
      .map((choice) => ({ value: null, choice: choice.id, label: choice.text }))
  return LEVEL_NAMES.map((label, i) => ({ value: i + 1, choice: null, label }))
}

const keyOf = (category: Category) => (category.choice ?? category.value)!

/** Why tau-b has no estimate, or null when it has one. */
function correlationGap(a: ComparedQuestionRow, b: ComparedQuestionRow, respondents: number, estimate: number | null): string | null {
  if (isChoice(a) || isChoice(b))
    return `${isChoice(a) ? 'questiona' : 'questionb'} is multiple choice: its choices have no order, so there is no rank correlation (see association)`
  if (respondents === 0) return 'nobody answered both questions'
  if (estimate === null) return 'one of the questions has a single level among the people who answered both'
  return null
}

function associationGap(respondents: number, estimate: number | null): string | null {
  if (respondents === 0) return 'nobody answered both questions'
  if (estimate === null) return 'one of the questions has a single category among the people who answered both'
  return null
}

/** The comparison from the loaded rows: pure. Cells of categories no longer listed (none expected) are left out. */
export function comparisonOf(
  a: ComparedQuestionRow,
  b: ComparedQuestionRow,
  choices: ChoiceRow[],
  cells: CrossTabRow[],
): QuestionComparison {
  const rows = categoriesOf(a, choices)
  const columns = categoriesOf(b, choices)
  const rowIndex = new Map(rows.map((category, i) => [keyOf(category), i]))
  const columnIndex = new Map(columns.map((category, j) => [keyOf(category), j]))
  const counts = rows.map(() => columns.map(() => 0))
  for (const cell of cells) {
    const i = rowIndex.get(Number(cell.a))
    const j = columnIndex.get(Number(cell.b))
    if (i !== undefined && j !== undefined) counts[i][j] += Number(cell.count)
  }
  const rowTotals = counts.map((row) => row.reduce((sum, c) => sum + c, 0))
  const columnTotals = columns.map((_, j) => counts.reduce((sum, row) => sum + row[j], 0))
  const respondents = rowTotals.reduce((sum, c) => sum + c, 0)

  const ordinal = !isChoice(a) && !isChoice(b)
  const tau = kendallTauB(ordinal ? counts : [])
  const v = cramersV(counts)
  const question = (q: ComparedQuestionRow) => ({ id: q.id, question: q.question, subtype: q.subtype })
  return {
    questiona: question(a),
    questionb: question(b),
    respondents,
    rows,
    columns,
    counts,
    row_totals: rowTotals,
    column_totals: columnTotals,
    correlation: {
      method: 'kendall_tau_b',
      estimate: tau.estimate,
      z: tau.z,
      p_value: tau.pValue,
      concordant_pairs: tau.concordant,
      discordant_pairs: tau.discordant,
      reason: correlationGap(a, b, respondents, tau.estimate),
    },
    association: {
      method: 'cramers_v',
      estimate: v.estimate,
      chi_square: v.chiSquare,
      df: v.df,
      reason: associationGap(respondents, v.estimate),
    },
  }
}

/** 400 for the same question twice, 404 when either question is unknown or the caller may not see it. */
export async function compareQuestions(db: Kysely<Database>, caller: Caller | null, questionA: number, questionB: number) {
  if (questionA === questionB) throw fieldError('questionb', 'Choose a question other than questiona.')
  const repository = compareQuestionsRepository(db)
  const found = await repository.questions([questionA, questionB])
  const a = found.find((q) => q.id === questionA)
  const b = found.find((q) => q.id === questionB)
  if (!a || !b || !canSee(caller, a) || !canSee(caller, b)) throw NotFound()
  const choiceQuestions = [a, b].filter(isChoice).map((q) => q.id)
  const choices = choiceQuestions.length > 0 ? await repository.choices(choiceQuestions) : []
  const cells = await repository.crossTab(a, b)
  return comparisonOf(a, b, choices, cells)
}
