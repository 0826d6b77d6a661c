import type { QuestionDemographics, QuestionGeographics } from './demographics.schemas.ts'
import { AGE_BANDS } from './age-bands.ts'
import { bandLabel, type AnswerBreakdown, type ReleasedArea } from './demographics.service.ts'

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

export function toQuestionDemographics(breakdown: AnswerBreakdown): QuestionDemographics {
  return {
    total_votes: breakdown.totalVotes,
    ageggendervalues: breakdown.cells.map((cell) => ({
      id__count: cell.count,
      age_range: AGE_BANDS[cell.band].label,
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

/** The published cells, exactly those of the JSON answer: a withheld cell has no row (its row would show its value). */
export function demographicsCsv(breakdown: AnswerBreakdown): string {
  return csvDocument(
    DEMOGRAPHICS_CSV_HEADER,
    breakdown.cells.map((cell) => [
      bandLabel(cell.band),
      cell.gender,
      cell.choiceId,
      cell.choiceText,
      cell.value,
      cell.value === null,
      cell.count,
      false,
    ]),
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

/** The published areas' (choice, value) counts, exactly those behind the JSON figures. */
export function geographicsCsv(areas: ReleasedArea[]): string {
  return csvDocument(
    GEOGRAPHICS_CSV_HEADER,
    areas.flatMap(({ area, cells }) =>
      cells.map((cell) => [
        area.id,
        area.code,
        area.name,
        area.m_type,
        area.parent,
        cell.choiceId,
        cell.choiceText,
        cell.value,
        cell.value === null,
        cell.count,
        false,
      ]),
    ),
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
