import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { fieldError, NotFound } from '../../core/errors.ts'
import { canSee } from '../../access/question-access.ts'
import { shownCount, type Headcount } from '../../disclosure/release.ts'
import { LEVEL_NAMES } from '../../engines/statistics/likert.ts'
import { cramersV, kendallTauB } from '../../engines/statistics/rank-correlation.ts'
import { releaseTable } from './compare-questions.disclosure.ts'
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
function correlationGap(a: ComparedQuestionRow, b: ComparedQuestionRow, withheld: string | null, estimate: number | null): string | null {
  if (isChoice(a) || isChoice(b))
    return `${isChoice(a) ? 'questiona' : 'questionb'} is multiple choice: its choices have no order, so there is no rank correlation (see association)`
  if (withheld) return withheld
  if (estimate === null) return 'one of the questions has a single level among the people who answered both'
  return null
}

function associationGap(withheld: string | null, estimate: number | null): string | null {
  if (withheld) return withheld
  if (estimate === null) return 'one of the questions has a single category among the people who answered both'
  return null
}

/**
 * The comparison from the loaded rows: pure. The table, its margins and every figure over it count the private
 * pairs only once the table holds k of them; below k respondents nothing of the table is published; cells and
 * margins are those releaseTable lets out. Cells of categories no longer listed (none expected) are left out.
 */
export function comparisonOf(
  a: ComparedQuestionRow,
  b: ComparedQuestionRow,
  choices: ChoiceRow[],
  rows: CrossTabRow[],
  k: number,
): QuestionComparison {
  const rowCategories = categoriesOf(a, choices)
  const columnCategories = categoriesOf(b, choices)
  const rowIndex = new Map(rowCategories.map((category, i) => [keyOf(category), i]))
  const columnIndex = new Map(columnCategories.map((category, j) => [keyOf(category), j]))
  const cells: Headcount[][] = rowCategories.map(() => columnCategories.map(() => ({ public: 0, private: 0 })))
  for (const row of rows) {
    const i = rowIndex.get(Number(row.a))
    const j = columnIndex.get(Number(row.b))
    if (i === undefined || j === undefined) continue
    cells[i][j].public += Number(row.public)
    cells[i][j].private += Number(row.private)
  }
  const release = releaseTable(cells, k)
  const { table } = release
  const published = table.published
  // Every figure over the pairs is over the table as its root shows it.
  const counts = published ? cells.map((row) => row.map((cell) => shownCount(cell, table))) : []
  const shown = counts.reduce((sum, row) => sum + row.reduce((s, c) => s + c, 0), 0)
  // The same words whether the pairs are public or private, and whatever their number below k.
  const withheld = published ? null : k <= 1 ? 'nobody answered both questions' : `fewer than ${k} people answered both questions`
  const ordinal = !isChoice(a) && !isChoice(b)
  const tau = kendallTauB(ordinal ? counts : [])
  const v = cramersV(counts)
  const question = (q: ComparedQuestionRow) => ({ id: q.id, question: q.question, subtype: q.subtype })
  return {
    questiona: question(a),
    questionb: question(b),
    ...(published ? { respondents: shown } : {}),
    rows: rowCategories,
    columns: columnCategories,
    cells: cells.flatMap((row, i) =>
      row.flatMap((cell, j) =>
        release.cells[i][j].published ? [{ row: i, column: j, count: shownCount(cell, release.cells[i][j]) }] : [],
      ),
    ),
    row_margins: cells.flatMap((row, i) => (release.rows[i].published ? [{ row: i, count: shownCount(sumOf(row), release.rows[i]) }] : [])),
    column_margins: columnCategories.flatMap((_, j) =>
      release.columns[j].published ? [{ column: j, count: shownCount(sumOf(cells.map((row) => row[j])), release.columns[j]) }] : [],
    ),
    correlation: {
      method: 'kendall_tau_b',
      estimate: tau.estimate,
      z: tau.z,
      p_value: tau.pValue,
      concordant_pairs: tau.concordant,
      discordant_pairs: tau.discordant,
      reason: correlationGap(a, b, withheld, tau.estimate),
    },
    association: {
      method: 'cramers_v',
      // Rounding can put a perfect association a hair above 1.
      estimate: v.estimate === null ? null : Math.min(1, v.estimate),
      chi_square: v.chiSquare,
      df: v.df,
      reason: associationGap(withheld, v.estimate),
    },
  }
}

const sumOf = (counts: Headcount[]): Headcount =>
  counts.reduce((total, c) => ({ public: total.public + c.public, private: total.private + c.private }), { public: 0, private: 0 })

/** 400 for the same question twice, 404 when either question is unknown or the caller may not see it. */
export async function compareQuestions(db: Kysely<Database>, caller: Caller | null, questionA: number, questionB: number, k: number) {
  if (questionA === questionB) throw fieldError('questionb', 'Choose a question other than questiona.')
  const repository = compareQuestionsRepository(db)
  const found = await repository.questions([questionA, questionB])
  const a = found.find((q) => q.id === questionA)
  const b = found.find((q) => q.id === questionB)
  if (!a || !b || !canSee(caller, a) || !canSee(caller, b)) throw NotFound()
  const choiceQuestions = [a, b].filter(isChoice).map((q) => q.id)
  const choices = choiceQuestions.length > 0 ? await repository.choices(choiceQuestions) : []
  const cells = await repository.crossTab(a, b)
  return comparisonOf(a, b, choices, cells, k)
}
