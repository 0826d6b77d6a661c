/**
 * From questions and stored answers to the engine's columns: a likert question is one column (rating − 3, so a
 * neutral 3 is 0), a multiple-choice question one column per choice (1 for the choice made, 0 for its other
 * choices). Columns follow the questions' order as given, choices in the order given; participants are the
 * distinct account ids.
 */
import type { OpinionColumn, OpinionInput } from './types.ts'

export type GroupQuestion = { id: number; kind: 'likert' } | { id: number; kind: 'choice'; choices: readonly number[] }

/** One answer per (account, question), parallel arrays; skipped answers are left out. */
export interface QuestionAnswers {
  accountId: ArrayLike<number>
  questionId: ArrayLike<number>
  /** likert: the rating 1..5; choice: the chosen choice's id. */
  value: ArrayLike<number>
}

export function opinionInput(questions: readonly GroupQuestion[], answers: QuestionAnswers): OpinionInput {
  const columns: OpinionColumn[] = []
  const firstColumn = new Map<number, { at: number; choices: Map<number, number> | null }>()
  for (const q of questions) {
    if (firstColumn.has(q.id)) throw new RangeError(`question ${q.id} is listed twice`)
    if (q.kind === 'likert') {
      firstColumn.set(q.id, { at: columns.length, choices: null })
      columns.push({ key: `q${q.id}`, kind: 'likert', question: q.id })
    } else {
      firstColumn.set(q.id, { at: columns.length, choices: new Map(q.choices.map((c, i) => [c, i])) })
      for (const c of q.choices) columns.push({ key: `q${q.id}:c${c}`, kind: 'choice', question: q.id })
    }
  }
  const total = answers.accountId.length
  const participantOf = new Map<number, number>()
  const accountIds: number[] = []
  let entries = 0
  for (let a = 0; a < total; a++) {
    const question = firstColumn.get(answers.questionId[a])
    if (!question) throw new RangeError(`question ${answers.questionId[a]} is not among the questions`)
    entries += question.choices ? question.choices.size : 1
    if (!participantOf.has(answers.accountId[a])) {
      participantOf.set(answers.accountId[a], accountIds.length)
      accountIds.push(answers.accountId[a])
    }
  }
  const participant = new Int32Array(entries)
  const column = new Int32Array(entries)
  const value = new Int8Array(entries)
  let at = 0
  for (let a = 0; a < total; a++) {
    const p = participantOf.get(answers.accountId[a])!
    const { at: first, choices } = firstColumn.get(answers.questionId[a])!
    const answer = answers.value[a]
    if (!choices) {
      if (!Number.isInteger(answer) || answer < 1 || answer > 5) throw new RangeError(`a rating is 1..5, got ${answer}`)
      participant[at] = p
      column[at] = first
      value[at++] = answer - 3
      continue
    }
    const chosen = choices.get(answer)
    if (chosen === undefined) throw new RangeError(`choice ${answer} is not a choice of question ${answers.questionId[a]}`)
    for (let c = 0; c < choices.size; c++) {
      participant[at] = p
      column[at] = first + c
      value[at++] = c === chosen ? 1 : 0
    }
  }
  return { accountIds, columns, answers: { participant, column, value } }
}

/**
 * A flag of each answer (whether it is private, say) carried to the entries `opinionInput` makes of the same
 * answers, in its order: one entry for a likert answer, one per choice of the question for a pick.
 */
export function entryFlags(questions: readonly GroupQuestion[], questionId: ArrayLike<number>, flags: ArrayLike<number>): Uint8Array {
  const width = new Map(questions.map((q) => [q.id, q.kind === 'likert' ? 1 : q.choices.length]))
  let entries = 0
  for (let a = 0; a < questionId.length; a++) entries += width.get(questionId[a])!
  const out = new Uint8Array(entries)
  let at = 0
  for (let a = 0; a < questionId.length; a++) {
    const w = width.get(questionId[a])!
    out.fill(flags[a], at, at + w)
    at += w
  }
  return out
}

/**
 * The input with these answers as zeroed statements (OpinionInput.zeroed), as Pol.is's map keeps the statements
 * moderated out and the meta ones: how many statements have an answer, and how many each participant answered.
 * Someone who answered only them joins as a participant without answers.
 */
export function withZeroedStatements(
  input: OpinionInput,
  zeroed: { accountId: ArrayLike<number>; questionId: ArrayLike<number> },
): OpinionInput {
  const answered = new Map<number, number>()
  const statements = new Set<number>()
  for (let a = 0; a < zeroed.accountId.length; a++) {
    answered.set(zeroed.accountId[a], (answered.get(zeroed.accountId[a]) ?? 0) + 1)
    statements.add(zeroed.questionId[a])
  }
  const accountIds = Array.from(input.accountIds)
  const present = new Set(accountIds)
  for (const account of answered.keys()) if (!present.has(account)) accountIds.push(account)
  return {
    ...input,
    accountIds,
    zeroed: { statements: statements.size, answered: accountIds.map((account) => answered.get(account) ?? 0) },
  }
}
