import type { AreaCellRow } from './demographics.repository.ts'
import type { QuestionDemographics, QuestionGeographics } from './demographics.schemas.ts'
import { bandLabel, type AnswerBreakdown } from './demographics.service.ts'

export const CSV_TYPE = 'text/csv; charset=utf-8'
export const GEOJSON_TYPE = 'application/geo+json'

type CsvValue = string | number | boolean | null

/** One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF (quotes doubled); null is empty. */
export function csvField(value: CsvValue): string {
  if (value === null) return ''
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** A CSV document: the header line, then one line per row, each ended by CRLF as RFC 4180 writes them. */
export function csvDocument(header: readonly string[], rows: readonly CsvValue[][]): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',') + '\r\n').join('')
}

/** A count as published: blank, and the row marked suppressed, below the smallest cell size. */
function published(count: number, minCellSize: number): { count: number | null; suppressed: boolean } {
  return count < minCellSize ? { count: null, suppressed: true } : { count, suppressed: false }
}

export function toQuestionDemographics(breakdown: AnswerBreakdown): QuestionDemographics {
  return {
    total_votes: breakdown.totalVotes,
    ageggendervalues: breakdown.cells.map((cell) => ({
      id__count: cell.count,
      age_range: bandLabel(cell.band),
      user__gender: cell.gender,
      value: cell.value,
      object__text: cell.choiceText,
    })),
  }
}

export const DEMOGRAPHICS_CSV_HEADER = [
  'age_range',
  'gender',
  'choice_id',
  'choice_text',
  'value',
  'skipped',
  'count',
  'suppressed',
] as const

export function demographicsCsv(breakdown: AnswerBreakdown, minCellSize: number): string {
  return csvDocument(
    DEMOGRAPHICS_CSV_HEADER,
    breakdown.cells.map((cell) => {
      const { count, suppressed } = published(cell.count, minCellSize)
      return [bandLabel(cell.band), cell.gender, cell.choiceId, cell.choiceText, cell.value, cell.value === null, count, suppressed]
    }),
  )
}

export const GEOGRAPHICS_CSV_HEADER = [
  'area_id',
  'area_code',
  'area_name',
  'area_m_type',
  'area_parent',
  'choice_id',
  'choice_text',
  'value',
  'skipped',
  'count',
  'suppressed',
] as const

export function geographicsCsv(cells: AreaCellRow[], minCellSize: number): string {
  return csvDocument(
    GEOGRAPHICS_CSV_HEADER,
    cells.map((cell) => {
      const { count, suppressed } = published(Number(cell.count), minCellSize)
      return [
        cell.area_id,
        cell.code,
        cell.name,
        cell.m_type,
        cell.parent_id,
        cell.choice_id,
        cell.choice_text,
        cell.value,
        cell.value === null,
        count,
        suppressed,
      ]
    }),
  )
}

/** A FeatureCollection with one Point per area (longitude, latitude) whose properties are the area's figures. */
export function geographicsGeoJson(geographics: QuestionGeographics, coordinates: Map<number, [number, number]>) {
  return {
    type: 'FeatureCollection',
    features: geographics.results.map(({ area, ...figures }) => ({
      type: 'Feature',
      id: area.id,
      geometry: { type: 'Point', coordinates: coordinates.get(area.id) ?? [0, 0] },
      properties: {
        question: geographics.question,
        area_id: area.id,
        area_name: area.name,
        area_code: area.code,
        area_m_type: area.m_type,
        area_parent: area.parent,
        ...figures,
      },
    })),
  }
}
