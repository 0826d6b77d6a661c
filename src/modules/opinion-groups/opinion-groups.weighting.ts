import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { cellDesign } from '../../engines/statistics/weighting-design.ts'
import { AGE_BANDS, AGE_SQL, ageBandIndex, bandPopulations } from '../demographics/age-bands.ts'
import { weightingRepository } from '../weighting/weighting.repository.ts'

/** Age today, in whole years, computed where the rows are. */
const AGE_NOW = sql.raw(AGE_SQL('users.dob', "now() AT TIME ZONE 'UTC'"))

export interface WeightedShares {
  /** Each group's share of the adults the grouped people stand for, 0..1, by label. */
  shares: Map<number, number>
  /** Grouped people of known age and region, with a census record: those the weights cover. */
  weighted: number
  method: 'post-stratified' | 'raked' | null
}

/**
 * Each group's census-weighted share (docs/opinion-groups.md): the grouped people of known age and region are
 * weighted to the newest census of their regions by age band × region, as the weighted results are
 * (src/engines/statistics/weighting-design.ts: post-stratified when every cell holds MIN_CELL_SIZE people, else
 * raked to the band and region margins), and a group's share is its members' weight over everyone's. Two statements.
 */
export async function weightedGroupShares(
  db: Kysely<Database>,
  members: { accountId: number; label: number }[],
  options: { minCellSize: number; weightCap: number },
): Promise<WeightedShares> {
  if (members.length === 0) return { shares: new Map(), weighted: 0, method: null }
  const { rows } = await sql<{ id: number; age: number | null; region_id: number | null }>`
    SELECT users.id, ${AGE_NOW} AS age, users.region_id FROM users
    WHERE users.id = ANY(${members.map((m) => m.accountId)}::int4[])`.execute(db)
  const person = new Map(rows.map((row) => [Number(row.id), row]))
  const regions = [...new Set(rows.flatMap((row) => (row.region_id === null ? [] : [Number(row.region_id)])))]
  const census = await weightingRepository(db).regionCensus(regions)
  const bands = new Map(census.map((row) => [row.area_id, bandPopulations(row.ages)]))
  const eligible = members.flatMap((member) => {
    const row = person.get(member.accountId)
    const band = ageBandIndex(row?.age === null || row?.age === undefined ? null : Number(row.age))
    const region = row?.region_id === null || row?.region_id === undefined ? null : Number(row.region_id)
    if (band === null || region === null || !((bands.get(region)?.[band] ?? 0) > 0)) return []
    return [{ label: member.label, band, region }]
  })
  const design = cellDesign(
    eligible.map((e) => e.band),
    eligible.map((e) => e.region),
    bands,
    AGE_BANDS.length,
    options,
  )
  if (!design.group) return { shares: new Map(), weighted: 0, method: null }
  const weights = design.group.weights
  const total = weights.reduce((sum, w) => sum + w, 0)
  const shares = new Map<number, number>()
  eligible.forEach((e, i) => shares.set(e.label, (shares.get(e.label) ?? 0) + weights[i] / total))
  return { shares, weighted: eligible.length, method: design.group.method }
}
