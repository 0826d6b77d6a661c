import { csvDocument } from '../demographics/demographics.mapper.ts'
import type { OpinionGroups } from './opinion-groups.schemas.ts'

export const OPINION_GROUPS_CSV_HEADER = [
  'group',
  'group_size',
  'question',
  'choice',
  'text',
  'agree',
  'disagree',
  'seen',
  'consensus',
  'divisiveness',
] as const

/** The open-data table: one row per shown (group, question or choice) cell, as the JSON's `questions` lists them. */
export function opinionGroupsCsv(groups: OpinionGroups): string {
  const sizes = new Map(groups.groups.map((g) => [g.label, g.size]))
  const rows = groups.questions.flatMap((column) =>
    column.groups.map((cell) => [
      cell.label,
      sizes.get(cell.label) ?? null,
      column.question,
      column.choice,
      column.text,
      cell.agree,
      cell.disagree,
      cell.seen,
      column.consensus,
      column.divisiveness,
    ]),
  )
  return csvDocument(OPINION_GROUPS_CSV_HEADER, rows)
}
