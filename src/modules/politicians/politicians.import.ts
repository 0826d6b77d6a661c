import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Db } from '../../db/types.ts'
import { readCsv, type CsvRecord } from '../../import/csv.ts'
import { ImportError } from '../../import/errors.ts'
import { parseIsoDate, quoted } from '../../import/values.ts'
import { politiciansImportRepository, type ImportedColumn } from './politicians-import.repository.ts'

/**
 * `civic-survey import-politicians FILE`: a CSV file, one politician a line, under a header naming its
 * columns in any order (case-insensitive). Only `name` is required:
 *
 *     external_id,name,sort_name,party,party_id,area_code,area_type,chamber,term,start_date,end_date,…
 *
 * - the politicians table's columns: external_id, name, sort_name, email, party, party_id, area_name,
 *   chamber, term, start_date, end_date (YYYY-MM-DD), image, gender, country, type (default candidate),
 *   social1, social1_page, social3, social4, fundraising_page, cv, statement; the API's names are
 *   accepted for a few (ID = external_id, group = party, group_id = party_id, area = area_name);
 * - `area_code`: the code of the area the politician stands for (an area of the database); `area_type` its
 *   m_type when several areas share the code; `area_name` defaults to that area's name.
 * A line whose external_id is already a politician's updates that politician, and only the columns the
 * file has; every other line creates one. Empty cells are empty text, or null where the column may be.
 * One transaction: any bad line rolls everything back and is reported as one line naming its number.
 */

export interface PoliticiansImportResult {
  records: number
  created: number
  updated: number
}

type Kind = 'text' | 'nullable' | 'date'

const COLUMNS: Readonly<Record<string, Kind>> = {
  external_id: 'nullable',
  name: 'text',
  sort_name: 'text',
  email: 'text',
  social1: 'text',
  social1_page: 'text',
  social3: 'text',
  social4: 'text',
  party: 'text',
  party_id: 'text',
  area_name: 'text',
  chamber: 'text',
  term: 'text',
  start_date: 'date',
  end_date: 'date',
  image: 'nullable',
  gender: 'text',
  country: 'text',
  type: 'text',
  fundraising_page: 'text',
  cv: 'nullable',
  statement: 'text',
}

const ALIASES: Readonly<Record<string, string>> = { id: 'external_id', group: 'party', group_id: 'party_id', area: 'area_name' }
const AREA_COLUMNS = ['area_code', 'area_type']
const CHUNK = 2_000

interface Row {
  line: number
  values: Record<string, string | null>
  areaCode: string | null
  areaType: string | null
  areaId: number | null
}

function headerName(cell: string): string {
  const name = cell
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
  return ALIASES[name] ?? name
}

function readHeader(record: CsvRecord): string[] {
  const names = record.fields.map(headerName)
  names.forEach((name, i) => {
    if (!(name in COLUMNS) && !AREA_COLUMNS.includes(name)) {
      throw new ImportError(`line ${record.line}: unknown header ${quoted(record.fields[i])} in column ${i + 1} (see docs/operations.md)`)
    }
    if (names.indexOf(name) !== i) throw new ImportError(`line ${record.line}: the column ${quoted(name)} is named twice`)
  })
  if (!names.includes('name')) throw new ImportError(`line ${record.line}: the header has no name column`)
  if (names.includes('area_type') && !names.includes('area_code')) {
    throw new ImportError(`line ${record.line}: the header has area_type without area_code`)
  }
  return names
}

function readRow(record: CsvRecord, header: readonly string[]): Row {
  const { line, fields } = record
  if (fields.length !== header.length) throw new ImportError(`line ${line}: ${fields.length} columns where the header has ${header.length}`)
  const row: Row = { line, values: {}, areaCode: null, areaType: null, areaId: null }
  header.forEach((name, i) => {
    const cell = fields[i].trim()
    if (name === 'area_code') row.areaCode = cell || null
    else if (name === 'area_type') row.areaType = cell || null
    else if (COLUMNS[name] === 'date') {
      if (cell !== '' && parseIsoDate(cell) === null)
        throw new ImportError(`line ${line}: ${name} ${quoted(cell)} is not a date YYYY-MM-DD`)
      row.values[name] = cell || null
    } else row.values[name] = COLUMNS[name] === 'nullable' && cell === '' ? null : cell
  })
  if (!row.values.name) throw new ImportError(`line ${line}: the name is empty`)
  if ('type' in row.values && !row.values.type) row.values.type = 'candidate'
  const { start_date: start, end_date: end } = row.values
  if (start && end && end < start) throw new ImportError(`line ${line}: end_date ${end} is before start_date ${start}`)
  return row
}

/** Sets each row's area from its code (and level), and its area name when the file gives none. */
async function resolveAreas(trx: Db, rows: Row[], hasAreaName: boolean): Promise<void> {
  const codes = [...new Set(rows.map((r) => r.areaCode).filter((c): c is string => c !== null))]
  if (codes.length === 0) return
  const areas = await politiciansImportRepository(trx).areasWithCodes(codes)
  for (const row of rows) {
    if (row.areaCode === null) continue
    const matches = areas.filter((a) => a.code === row.areaCode && (row.areaType === null || a.m_type === row.areaType))
    const what = `area_code ${quoted(row.areaCode)}${row.areaType ? ` with area_type ${quoted(row.areaType)}` : ''}`
    if (matches.length === 0) throw new ImportError(`line ${row.line}: no area has the ${what}`)
    if (matches.length > 1) {
      throw new ImportError(
        `line ${row.line}: ${matches.length} areas have the ${what} (${matches.map((a) => a.m_type).join(', ')}): add an area_type column`,
      )
    }
    row.areaId = matches[0].id
    if (!hasAreaName || !row.values.area_name) row.values.area_name = matches[0].name
  }
}

/** The table's columns an import writes, with how their cells read. */
const columnsOf = (names: readonly string[]): ImportedColumn[] =>
  names.map((name) => ({ name, kind: name === 'area_id' ? 'area' : COLUMNS[name] }))

export async function importPoliticians(db: Kysely<Database>, file: string): Promise<PoliticiansImportResult> {
  let header: string[] | null = null
  const rows: Row[] = []
  const lineOfId = new Map<string, number>()
  for await (const record of readCsv(file)) {
    if (!header) {
      header = readHeader(record)
      continue
    }
    const row = readRow(record, header)
    const id = row.values.external_id
    if (id) {
      const first = lineOfId.get(id)
      if (first !== undefined) throw new ImportError(`line ${row.line}: external_id ${quoted(id)} is already on line ${first}`)
      lineOfId.set(id, row.line)
    }
    rows.push(row)
  }
  if (!header) throw new ImportError('the file is empty (it needs a header line naming its columns)')
  if (rows.length === 0) throw new ImportError('the file has a header but no politicians')
  const given = header.filter((name) => name in COLUMNS)
  const hasAreaName = given.includes('area_name')
  const columns = columnsOf(header.includes('area_code') ? [...new Set([...given, 'area_name', 'area_id'])] : given)
  return db.transaction().execute(async (trx) => {
    await resolveAreas(trx, rows, hasAreaName)
    const repository = politiciansImportRepository(trx)
    const existing = await repository.existingExternalIds([...lineOfId.keys()])
    const updates = rows.filter((r) => r.values.external_id && existing.has(r.values.external_id))
    const inserts = rows.filter((r) => !(r.values.external_id && existing.has(r.values.external_id)))
    for (let start = 0; start < inserts.length; start += CHUNK) await repository.insert(inserts.slice(start, start + CHUNK), columns)
    for (let start = 0; start < updates.length; start += CHUNK) await repository.update(updates.slice(start, start + CHUNK), columns)
    return { records: rows.length, created: inserts.length, updated: updates.length }
  })
}
