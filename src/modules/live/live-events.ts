import { createHash } from 'node:crypto'
import type { Static } from 'typebox'
import { FIGURE_COLUMNS, type ChoiceFiguresRow, type FiguresRow, type QuestionFiguresRow } from './live-figures.repository.ts'
import type { QuestionFigures } from './live.schemas.ts'

function figuresOf(row: FiguresRow): Record<string, number> {
  return Object.fromEntries(FIGURE_COLUMNS.map((name) => [name, row[name]]))
}

/** A question's figures as its stream sends them: the detail's values, field for field. */
export function questionFigures(row: QuestionFiguresRow, choices: ChoiceFiguresRow[]): Static<typeof QuestionFigures> {
  return {
    id: row.id,
    ...figuresOf(row),
    choices: choices.map((choice) => ({ id: choice.id, text: choice.text, store_number: choice.store_number, ...figuresOf(choice) })),
  } as Static<typeof QuestionFigures>
}

/**
 * The event id: a digest of what the stream shows, the same in every process, so a client reconnecting to any
 * of them with Last-Event-ID is sent figures only if they changed meanwhile.
 */
export function fingerprint(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22)
}

/** One Server-Sent Event; `data` is one line of JSON. */
export function sseEvent(event: string, id: string | null, data: string): string {
  return `${id === null ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`
}
