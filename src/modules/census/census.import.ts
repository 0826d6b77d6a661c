import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { copyIn } from '../../db/copy-in.ts'
import { INT4_MAX } from '../../core/integers.ts'
import { headerKey, readCsvLines, type CsvLine, type CsvRecord } from '../../import/csv.ts'
import { ImportError } from '../../import/errors.ts'
import { parseCount, quoted } from '../../import/values.ts'
import { censusRepository } from './census.repository.ts'
import { CENSUS_AGES } from './census.schemas.ts'

/**
 * `civic-survey import-census FILE [--date YYYY-MM-DD]`: population by single year of age in the layout of
 * the ONS mid-year estimates (MYE2 "Persons" saved as CSV):
 *
 *     Code,Name,Geography,All ages,0,1,…,89,90+
 *
 * Headers are matched case-insensitively; the Geography (level) column is optional; the last age may be
 * written 90 or 90+ (it counts everyone aged 90 and over). Title or note lines before the header (a
 * spreadsheet's first rows) are skipped. The whole file is one transaction: the records of the date are
 * deleted, the file's streamed in with COPY, then linked to the areas of the same code; any bad row rolls
 * everything back and is reported as one line naming its line number.
 */

export interface CensusImportOptions {
  /** The date of every record (YYYY-MM-DD), or null for undated records. */
  date: string | null
  onBytes?: (bytesRead: number) => void
  onStage?: (stage: string) => void
}

export interface CensusImportResult {
  records: number
  /** Records of the same date that were there before and are replaced. */
  replaced: number
  /** Records linked to an area by their code. */
  linked: number
}

const CODE_HEADERS = new Set(['code', 'area code', 'geography code', 'areacode'])
const NAME_HEADERS = new Set(['name', 'area name', 'geography name', 'areaname'])
const LEVEL_HEADERS = new Set(['geography', 'geography1', 'geography 1', 'level', 'geography level', 'type'])
const ALL_AGES_HEADERS = new Set(['all ages', 'all', 'all persons', 'total', 'allages'])
/** Title lines tolerated before the header. */
const MAX_PREAMBLE = 20

interface Layout {
  /** Column of All ages; the 91 ages follow it. */
  allAges: number
  columns: number
}

function ageHeader(cell: string, age: number): boolean {
  const match = /^(?:age )?(\d{1,2})(\+| plus| and over| and older)?$/.exec(headerKey(cell))
  if (!match || Number(match[1]) !== age) return false
  return match[2] === undefined || age === CENSUS_AGES - 1
}

const EXPECTED_HEADER = 'Code, Name, [Geography,] All ages, 0, 1, … 89, 90 (or 90+)'

/** The layout the header record gives; an ImportError naming the first unknown header otherwise. */
function readHeader(record: CsvRecord): Layout {
  const cells = record.fields
  let last = cells.length
  while (last > 0 && cells[last - 1].trim() === '') last--
  const fail = (problem: string): never => {
    throw new ImportError(`line ${record.line}: ${problem}; expected the header ${EXPECTED_HEADER}`)
  }
  if (!CODE_HEADERS.has(headerKey(cells[0]))) fail(`unknown header ${quoted(cells[0])} in column 1`)
  if (last < 2 || !NAME_HEADERS.has(headerKey(cells[1]))) fail(`unknown header ${quoted(cells[1] ?? '')} in column 2`)
  const allAges = LEVEL_HEADERS.has(headerKey(cells[2] ?? '')) ? 3 : 2
  if (!ALL_AGES_HEADERS.has(headerKey(cells[allAges] ?? '')))
    fail(`unknown header ${quoted(cells[allAges] ?? '')} in column ${allAges + 1}`)
  for (let age = 0; age < CENSUS_AGES; age++) {
    const column = allAges + 1 + age
    if (column >= last) fail(`the header stops after ${last} columns, before age ${age}`)
    if (!ageHeader(cells[column], age)) fail(`unknown header ${quoted(cells[column])} in column ${column + 1}, where age ${age} belongs`)
  }
  const columns = allAges + 1 + CENSUS_AGES
  if (last > columns) fail(`unknown header ${quoted(cells[columns])} in column ${columns + 1}, after age 90`)
  return { allAges, columns }
}

function isTitleLine(record: CsvRecord): boolean {
  return !CODE_HEADERS.has(headerKey(record.fields[0])) && record.fields.filter((cell) => cell.trim() !== '').length <= 2
}

/** A value in COPY's text format: backslash, tab and line breaks escaped. */
const copyText = (value: string): string => (/[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : value)
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/**
 * The counts of an unquoted record read straight from its text: the All ages total, then the ages as the
 * text they are written in, or null when anything is unusual (spaces, grouping commas, padding, a wrong
 * count of columns), which the slower field by field reading then explains.
 */
function scanCounts(text: string, from: number): { total: number; sum: number; ages: string } | null {
  let total = -1
  let sum = 0
  let fields = 0
  let value = 0
  let digits = 0
  let agesFrom = -1
  for (let i = from; i <= text.length; i++) {
    const c = i === text.length ? 44 : text.charCodeAt(i)
    if (c === 44) {
      if (digits === 0 || digits > 9) return null
      if (fields === 0) {
        total = value
        agesFrom = i + 1
      } else sum += value
      fields++
      value = 0
      digits = 0
    } else if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48)
      digits++
    } else return null
  }
  return fields === CENSUS_AGES + 1 ? { total, sum, ages: text.slice(agesFrom) } : null
}

/** Checks one data record and returns it as a line of COPY text (code, name, date, all ages, ages). */
function copyLine(record: CsvLine, layout: Layout, date: string, seen: Map<string, number>): string {
  const { line, text } = record
  let code: string
  let name: string
  let counts: ReturnType<typeof scanCounts> = null
  if (record.fields === null) {
    // The text columns before All ages, then the counts scanned without splitting the line.
    let at = 0
    const head: string[] = []
    for (let column = 0; column < layout.allAges && at >= 0; column++) {
      const comma = text.indexOf(',', at)
      head.push(comma < 0 ? text.slice(at) : text.slice(at, comma))
      at = comma < 0 ? -1 : comma + 1
    }
    code = (head[0] ?? '').trim()
    name = (head[1] ?? '').trim()
    if (at >= 0) counts = scanCounts(text, at)
  } else {
    code = record.fields[0].trim()
    name = (record.fields[1] ?? '').trim()
  }
  if (counts === null) {
    const fields = record.fields ?? text.split(',')
    if (fields.length !== layout.columns) {
      // A spreadsheet may pad rows with empty cells; anything else in them is a wrong column count.
      if (fields.length < layout.columns || fields.slice(layout.columns).some((cell) => cell.trim() !== '')) {
        throw new ImportError(`line ${line}: ${fields.length} columns where the header has ${layout.columns}`)
      }
    }
    const total = parseCount(fields[layout.allAges])
    if (total === null) throw new ImportError(`line ${line}: All ages ${quoted(fields[layout.allAges])} is not a whole number of people`)
    let sum = 0
    const ages = new Array<number>(CENSUS_AGES)
    for (let age = 0; age < CENSUS_AGES; age++) {
      const cell = fields[layout.allAges + 1 + age]
      const count = parseCount(cell)
      if (count === null) {
        throw new ImportError(`line ${line}: age ${age}${age === 90 ? '+' : ''}: ${quoted(cell)} is not a whole number of people`)
      }
      ages[age] = count
      sum += count
    }
    counts = { total, sum, ages: ages.join(',') }
  }
  if (code === '') throw new ImportError(`line ${line}: the code is empty`)
  if (code.length > 50) throw new ImportError(`line ${line}: the code ${quoted(code)} is longer than 50 characters`)
  if (name === '') throw new ImportError(`line ${line}: the name is empty`)
  const first = seen.get(code)
  if (first !== undefined) throw new ImportError(`line ${line}: the code ${quoted(code)} is already on line ${first}`)
  seen.set(code, line)
  if (counts.total > INT4_MAX || counts.sum > INT4_MAX) throw new ImportError(`line ${line}: a count is larger than ${INT4_MAX}`)
  if (counts.sum !== counts.total) {
    throw new ImportError(`line ${line}: ages 0 to 90+ add up to ${counts.sum}, but All ages is ${counts.total}`)
  }
  return `${copyText(code)}\t${copyText(name)}\t${date}\t${counts.total}\t{${counts.ages}}\n`
}

/**
 * The file's records as COPY text, a block of the file at a time; the header and the title lines before it are
 * read here too. An ImportError thrown while reading ends the COPY, and with it the transaction.
 */
async function* copyChunks(file: string, options: CensusImportOptions, counted: { records: number }): AsyncGenerator<string> {
  const date = options.date ?? '\\N'
  let layout: Layout | null = null
  let preamble = 0
  const seen = new Map<string, number>()
  for await (const block of readCsvLines(file, { onBytes: options.onBytes })) {
    let chunk = ''
    for (const line of block) {
      if (!layout) {
        const record = { line: line.line, fields: line.fields ?? line.text.split(',') }
        if (isTitleLine(record) && ++preamble <= MAX_PREAMBLE) continue
        layout = readHeader(record)
        continue
      }
      chunk += copyLine(line, layout, date, seen)
      counted.records++
    }
    if (chunk !== '') yield chunk
  }
  if (!layout) throw new ImportError(`the file has no header line (${EXPECTED_HEADER})`)
  if (counted.records === 0) throw new ImportError('the file has a header but no records')
}

export async function importCensus(db: Kysely<Database>, file: string, options: CensusImportOptions): Promise<CensusImportResult> {
  const { date } = options
  return db.transaction().execute(async (trx) => {
    const census = censusRepository(trx)
    const replaced = await census.removeDate(date)
    const counted = { records: 0 }
    // COPY streams the rows as the file is read: the database parses one block while the next is checked here.
    await copyIn(trx, 'COPY census_data (code, name, date, all_ages, ages) FROM STDIN', copyChunks(file, options, counted))
    options.onStage?.('linking')
    const linked = await census.linkAreas(date)
    return { records: counted.records, replaced, linked }
  })
}
