import fs from 'node:fs'
import { ImportError } from './errors.ts'

/** One CSV record: its fields and the (1-based) line of the file it starts on. */
export interface CsvRecord {
  line: number
  fields: string[]
}

/** One record as read: its text, and its fields when it has quotes (otherwise they are its text split at commas). */
export interface CsvLine {
  line: number
  text: string
  fields: string[] | null
}

export interface CsvReadOptions {
  /** Called now and then with the bytes read so far (for a progress bar). */
  onBytes?: (bytesRead: number) => void
}

/**
 * Reads a CSV file a block of records at a time without holding it in memory (RFC 4180: comma separated,
 * fields in double quotes may hold commas, doubled quotes and line breaks). A byte-order mark is dropped and
 * CRLF line ends are accepted. Empty lines are skipped. An unterminated quote is an ImportError naming its
 * line. Blocks (one per chunk of the file read) keep the per-record cost low on files of millions of lines.
 */
export async function* readCsvBlocks(file: string, options: CsvReadOptions = {}): AsyncGenerator<CsvRecord[]> {
  for await (const block of readCsvLines(file, options)) {
    yield block.map((record) => ({ line: record.line, fields: record.fields ?? record.text.split(',') }))
  }
}

/** As `readCsvBlocks`, leaving records without quotes unsplit, for callers that scan the text themselves. */
export async function* readCsvLines(file: string, options: CsvReadOptions = {}): AsyncGenerator<CsvLine[]> {
  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })
  let lineNumber = 0
  let rest = ''
  let pending: { line: number; text: string } | null = null
  const take = (raw: string, out: CsvLine[]) => {
    lineNumber++
    let text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    const record: { line: number; text: string } = pending
      ? { line: pending.line, text: `${pending.text}\n${text}` }
      : { line: lineNumber, text }
    if (!record.text.includes('"')) {
      if (record.text.trim() !== '') out.push({ line: record.line, text: record.text, fields: null })
      return
    }
    const fields = splitCsvLine(record.text)
    if (fields === null) {
      pending = record
      return
    }
    pending = null
    out.push({ line: record.line, text: record.text, fields })
  }
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const text = rest + chunk
      const out: CsvLine[] = []
      let from = 0
      for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', from)) {
        take(text.slice(from, newline), out)
        from = newline + 1
      }
      rest = text.slice(from)
      options.onBytes?.(stream.bytesRead)
      if (out.length > 0) yield out
    }
    const out: CsvLine[] = []
    if (rest !== '') take(rest, out)
    if (out.length > 0) yield out
  } finally {
    stream.destroy()
  }
  if (pending) throw new ImportError(`line ${(pending as { line: number }).line}: a quoted field is never closed`)
}

/** The records of a CSV file one by one (see `readCsvBlocks`). */
export async function* readCsv(file: string, options: CsvReadOptions = {}): AsyncGenerator<CsvRecord> {
  for await (const block of readCsvBlocks(file, options)) yield* block
}

/** The fields of one record, or null when a quoted field goes on past the end of the text. */
export function splitCsvLine(text: string): string[] | null {
  if (!text.includes('"')) return text.split(',')
  const fields: string[] = []
  let i = 0
  const n = text.length
  for (;;) {
    if (text[i] === '"') {
      let value = ''
      i++
      for (;;) {
        const quote = text.indexOf('"', i)
        if (quote < 0) return null
        value += text.slice(i, quote)
        if (text[quote + 1] === '"') {
          value += '"'
          i = quote + 2
        } else {
          i = quote + 1
          break
        }
      }
      // Text between a closing quote and the next comma is kept as it is (lenient, as spreadsheets write it).
      const comma = text.indexOf(',', i)
      fields.push(value + (comma < 0 ? text.slice(i) : text.slice(i, comma)))
      if (comma < 0) return fields
      i = comma + 1
    } else {
      const comma = text.indexOf(',', i)
      if (comma < 0) {
        fields.push(text.slice(i))
        return fields
      }
      fields.push(text.slice(i, comma))
      i = comma + 1
    }
    if (i === n) {
      fields.push('')
      return fields
    }
  }
}

/** A header cell compared case- and space-insensitively: "All ages" → "all ages". */
export function headerKey(cell: string): string {
  return cell
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, ' ')
}
