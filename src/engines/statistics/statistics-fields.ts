import { Type, type TProperties } from 'typebox'
import { LEVEL_NAMES } from './likert.ts'

/** The fields of one statistics family (spec 2.8), as the API shows them and the tables store them. */
export const STATISTIC_FIELDS = ['vote_count', 'value', 'sum', 'heat', 'consensus', 'skipped', ...LEVEL_NAMES] as const
const INTEGER_STATISTICS = new Set<string>(['vote_count', 'skipped', ...LEVEL_NAMES])

/** The statistics family of spec 2.8 under a prefix. */
export function statisticsProperties(prefix: 'direct' | 'liquid'): TProperties {
  const properties: TProperties = {}
  for (const field of STATISTIC_FIELDS) {
    properties[`${prefix}_${field}`] = INTEGER_STATISTICS.has(field) ? Type.Integer() : Type.Number()
  }
  return properties
}

/** Every column name of a statistics family, for selects and ordering. */
export function statisticsColumns(prefix: 'direct' | 'liquid'): string[] {
  return STATISTIC_FIELDS.map((field) => `${prefix}_${field}`)
}
