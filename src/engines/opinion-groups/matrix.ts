/**
 * The answers as a sparse, centred matrix. Missing cells are filled with their column's mean (Pol.is's rule since
 * 2017), so after centring every filled cell is exactly 0: the centred matrix has one non-zero per answer and every
 * product below costs O(answers). The dense participants × columns matrix is never built. With missing cells as 0
 * (Pol.is before 2017-10-21) a missing cell is −centre after centring: the same for every row of a column, so the
 * products add it as one rank-one term (pca.ts) and still cost O(answers).
 *
 * Rows are the participants in ascending account id and each row's entries are in ascending column, whatever the
 * input order: every sum then runs in one order, so the same answers give bit-identical figures.
 */
import type { OpinionInput, OpinionMap } from './types.ts'

export interface OpinionMatrix {
  rows: number
  columns: number
  /** Account id of each row, ascending. */
  accountIds: Float64Array
  /** Row i's entries are rowStart[i] .. rowStart[i + 1] − 1. */
  rowStart: Int32Array
  column: Int32Array
  /** The answer minus its column's centre. */
  centred: Float64Array
  /** +1 agree, −1 disagree, 0 seen only (a likert 3, a Pol.is pass). */
  stance: Int8Array
  /**
   * Each column's centre: its mean over its answers (0 for a column nobody answered); with missing cells as 0, its
   * mean over every row.
   */
  center: Float64Array
  /** A missing cell after centring, by column: null when it is 0 (missing cells hold the mean). */
  missing: Float64Array | null
  /** Answers per column. */
  columnAnswers: Int32Array
  /** Columns with at least one answer: the width the sparsity-aware projection scales to. */
  activeColumns: number
  /** Questions with at least one answer. */
  activeQuestions: number
  /** Distinct questions each row answered. */
  answeredQuestions: Int32Array
  /** Zeroed statements with an answer: answered by every row in the scaling (OpinionInput.zeroed). */
  zeroedStatements: number
  /** Zeroed statements each row answered itself. */
  zeroedAnswered: Int32Array
}

function checkIndex(value: number, size: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value >= size) throw new RangeError(`${what} ${value} is not an index below ${size}`)
  return value
}

/** Rows ascending by account id: rowOf[participant index] = row. */
function rowsByAccount(accountIds: ArrayLike<number>): { ids: Float64Array; rowOf: Int32Array } {
  const n = accountIds.length
  const order = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(accountIds[i])) throw new RangeError(`account id ${accountIds[i]} is not a number`)
    order[i] = i
  }
  order.sort((a, b) => accountIds[a] - accountIds[b])
  const ids = new Float64Array(n)
  const rowOf = new Int32Array(n)
  for (let row = 0; row < n; row++) {
    ids[row] = accountIds[order[row]]
    if (row > 0 && ids[row] === ids[row - 1]) throw new RangeError(`account id ${ids[row]} appears twice`)
    rowOf[order[row]] = row
  }
  return { ids, rowOf }
}

/** Sorts entries start..end−1 by column (they arrive in any order); a row already in order is left alone. */
function sortRow(
  column: Int32Array,
  values: Float64Array,
  start: number,
  end: number,
  scratch: { order: Int32Array; column: Int32Array; values: Float64Array },
) {
  let sorted = true
  for (let k = start + 1; k < end && sorted; k++) sorted = column[k - 1] <= column[k]
  if (sorted) return
  const length = end - start
  const order = scratch.order.subarray(0, length)
  for (let k = 0; k < length; k++) {
    order[k] = k
    scratch.column[k] = column[start + k]
    scratch.values[k] = values[start + k]
  }
  order.sort((a, b) => scratch.column[a] - scratch.column[b])
  for (let k = 0; k < length; k++) {
    column[start + k] = scratch.column[order[k]]
    values[start + k] = scratch.values[order[k]]
  }
}

/** Checks the input and builds the sparse centred matrix: a counting sort by row, then each row by column. */
export function buildOpinionMatrix(input: OpinionInput, missing: OpinionMap['missing'] = 'mean'): OpinionMatrix {
  const { columns: columnInfo, answers } = input
  const columns = columnInfo.length
  const total = answers.participant.length
  if (answers.column.length !== total || answers.value.length !== total) throw new RangeError('the answer arrays differ in length')
  const { ids: accountIds, rowOf } = rowsByAccount(input.accountIds)
  const rows = accountIds.length

  const rowStart = new Int32Array(rows + 1)
  for (let a = 0; a < total; a++) rowStart[rowOf[checkIndex(answers.participant[a], rows, 'participant')] + 1]++
  for (let row = 0; row < rows; row++) rowStart[row + 1] += rowStart[row]
  const cursor = rowStart.slice(0, rows)
  const column = new Int32Array(total)
  const centred = new Float64Array(total)
  for (let a = 0; a < total; a++) {
    const at = cursor[rowOf[answers.participant[a]]]++
    column[at] = checkIndex(answers.column[a], columns, 'column')
    centred[at] = answers.value[a]
  }

  let longest = 0
  for (let row = 0; row < rows; row++) longest = Math.max(longest, rowStart[row + 1] - rowStart[row])
  const scratch = { order: new Int32Array(longest), column: new Int32Array(longest), values: new Float64Array(longest) }
  for (let row = 0; row < rows; row++) sortRow(column, centred, rowStart[row], rowStart[row + 1], scratch)

  const choice = Uint8Array.from(columnInfo, (c) => (c.kind === 'choice' ? 1 : 0))
  const stance = new Int8Array(total)
  const sum = new Float64Array(columns)
  const columnAnswers = new Int32Array(columns)
  for (let row = 0; row < rows; row++)
    for (let k = rowStart[row]; k < rowStart[row + 1]; k++) {
      const j = column[k]
      const value = centred[k]
      if (k > rowStart[row] && column[k - 1] === j) throw new RangeError(`account ${accountIds[row]} answers column ${j} twice`)
      if (choice[j]) {
        if (value !== 0 && value !== 1) throw new RangeError(`a choice column holds 0 or 1, got ${value}`)
        stance[k] = value === 1 ? 1 : -1
      } else {
        if (!Number.isFinite(value)) throw new RangeError(`a likert value is a number, got ${value}`)
        stance[k] = Math.sign(value)
      }
      sum[j] += value
      columnAnswers[j]++
    }
  const center = new Float64Array(columns)
  let activeColumns = 0
  for (let j = 0; j < columns; j++)
    if (columnAnswers[j] > 0) {
      center[j] = sum[j] / (missing === 'zero' ? rows : columnAnswers[j])
      activeColumns++
    }
  for (let k = 0; k < total; k++) centred[k] -= center[column[k]]

  const { answeredQuestions, activeQuestions } = countQuestions(columnInfo, rowStart, column, columnAnswers)
  const zeroedAnswered = new Int32Array(rows)
  const zeroed = input.zeroed
  if (zeroed) {
    if (!Number.isInteger(zeroed.statements) || zeroed.statements < 0)
      throw new RangeError(`zeroed.statements is a count, got ${zeroed.statements}`)
    if (zeroed.answered.length !== rows) throw new RangeError('zeroed.answered needs one count per participant')
    for (let i = 0; i < rows; i++) zeroedAnswered[rowOf[i]] = zeroed.answered[i]
  }
  return {
    rows,
    columns,
    accountIds,
    rowStart,
    column,
    centred,
    stance,
    center,
    missing: missing === 'zero' ? center.map((c) => -c + 0) : null,
    columnAnswers,
    activeColumns,
    activeQuestions,
    answeredQuestions,
    zeroedStatements: zeroed?.statements ?? 0,
    zeroedAnswered,
  }
}

/** Distinct questions per row: a choice question fills several columns of a row but counts once. */
function countQuestions(columnInfo: OpinionInput['columns'], rowStart: Int32Array, column: Int32Array, columnAnswers: Int32Array) {
  const questionIndex = new Map<number, number>()
  const questionOf = Int32Array.from(columnInfo, (c) => {
    if (!questionIndex.has(c.question)) questionIndex.set(c.question, questionIndex.size)
    return questionIndex.get(c.question)!
  })
  const active = new Uint8Array(questionIndex.size)
  columnAnswers.forEach((count, j) => {
    if (count > 0) active[questionOf[j]] = 1
  })
  const stamp = new Int32Array(questionIndex.size).fill(-1)
  const rows = rowStart.length - 1
  const answeredQuestions = new Int32Array(rows)
  for (let row = 0; row < rows; row++)
    for (let k = rowStart[row]; k < rowStart[row + 1]; k++) {
      const q = questionOf[column[k]]
      if (stamp[q] !== row) {
        stamp[q] = row
        answeredQuestions[row]++
      }
    }
  return { answeredQuestions, activeQuestions: active.reduce((sum, a) => sum + a, 0) }
}
