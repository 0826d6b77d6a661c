import type { FieldErrors } from '../../core/errors.ts'
import type { ChoiceInput } from './question-writes.schemas.ts'
import { invalidPk } from '../../core/errors.ts'

/** Pure rules of question writes: what a body means and what it may change, apart from any I/O. */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/
export const DATE_TIME_MESSAGE =
  'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'

/** DRF's DateTimeField input: a date alone is midnight, a time without an offset is UTC. */
export function parseDateTime(text: string): Date | null {
  const match = DATE_TIME.exec(text.trim())
  if (!match) return null
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '0', zone = 'Z'] = match
  const offset = zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`
  const value = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}.${fraction.padEnd(3, '0').slice(0, 3)}${offset}`)
  if (Number.isNaN(value.getTime())) return null
  // Date rolls 2021-02-30 over into March; DRF refuses it.
  if (new Date(Date.UTC(Number(year), Number(month) - 1, Number(day))).getUTCDate() !== Number(day)) return null
  return value
}

export { isWebLink } from '../../core/web-links.ts'

/** The voting window: both ends optional, the end strictly after the start. */
export function windowErrors(startAt: Date | null, endAt: Date | null): FieldErrors {
  if (startAt && endAt && endAt.getTime() <= startAt.getTime()) return { end_at: ['The end of voting must be after its start.'] }
  return {}
}

/**
 * The tags of a question in stored order: the topic first (position 0), then the others as given,
 * each once. Without an explicit topic the first tag is the topic.
 */
export function orderedTags(tagIds: number[], topic: number | null | undefined): number[] {
  const unique = [...new Set(tagIds)]
  const chosen = topic ?? unique[0]
  if (chosen === undefined || chosen === null) return unique
  return [chosen, ...unique.filter((id) => id !== chosen)]
}

export const MCQ_CHOICES_MESSAGE = 'A multiple-choice question needs at least two choices.'
export const LIKERT_CHOICES_MESSAGE = 'A likert question has no choices: send subtype "mcq" or no choices.'

/** The subtype a body asks for: explicit, else implied by the choices sent, else unchanged. */
export function requestedSubtype(
  explicit: 'likert' | 'mcq' | undefined,
  choices: unknown[] | undefined,
  current: 'likert' | 'mcq',
): 'likert' | 'mcq' {
  if (explicit) return explicit
  if (choices !== undefined) return choices.length > 0 ? 'mcq' : 'likert'
  return current
}

export function choiceCountErrors(subtype: 'likert' | 'mcq', choiceCount: number): FieldErrors {
  if (subtype === 'mcq' && choiceCount < 2) return { choices: [MCQ_CHOICES_MESSAGE] }
  if (subtype === 'likert' && choiceCount > 0) return { choices: [LIKERT_CHOICES_MESSAGE] }
  return {}
}

export interface ExistingChoice {
  id: number
  text: string
  answered: boolean
}

export interface ChoicePlan {
  /** Existing choices that go, none of them answered. */
  remove: number[]
  /** Every choice of the new list in order: an existing id to keep (maybe reworded), or a new text. */
  list: { id: number | null; text: string }[]
}

/**
 * A new list of choices against the stored ones: ids name choices to keep, entries without an id are new.
 * A choice someone has chosen can be neither removed nor reworded, so its answers keep their meaning.
 */
export function planChoices(existing: ExistingChoice[], requested: ChoiceInput[]): { plan: ChoicePlan; errors: FieldErrors } {
  const byId = new Map(existing.map((choice) => [choice.id, choice]))
  const messages: string[] = []
  const seen = new Set<number>()
  const list: ChoicePlan['list'] = []
  for (const entry of requested) {
    if (entry.id === undefined) {
      list.push({ id: null, text: entry.text })
      continue
    }
    const current = byId.get(entry.id)
    if (!current || seen.has(entry.id)) {
      messages.push(invalidPk(entry.id))
      continue
    }
    seen.add(entry.id)
    if (current.answered && current.text !== entry.text) messages.push(`The choice "${current.text}" has answers; its text cannot change.`)
    list.push({ id: entry.id, text: entry.text })
  }
  const remove = existing.filter((choice) => !seen.has(choice.id))
  for (const choice of remove) {
    if (choice.answered) messages.push(`The choice "${choice.text}" has answers; it cannot be removed.`)
  }
  return { plan: { remove: remove.map((choice) => choice.id), list }, errors: messages.length ? { choices: messages } : {} }
}

export function mergeErrors(...parts: FieldErrors[]): FieldErrors {
  const out: FieldErrors = {}
  for (const part of parts) {
    for (const [field, messages] of Object.entries(part)) out[field] = [...(out[field] ?? []), ...messages]
  }
  return out
}
