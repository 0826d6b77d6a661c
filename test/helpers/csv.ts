import assert from 'node:assert/strict'

/**
 * RFC 4180 records from a whole text: quoted fields may hold commas, doubled quotes and line breaks. A record ends
 * at CRLF, LF or CR, and the last one need not end at all (the Pol.is files). With `crlf`, for the service's own
 * answers, only CRLF ends a record and the text must end with one. Written here rather than taken from
 * src/import/csv.ts, which reads files, so that the service's CSV is checked by a reader of the tests' own.
 */
export function parseCsv(text: string, { crlf = false } = {}): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let field = ''
  let quoted = false
  const endRecord = () => {
    record.push(field)
    records.push(record)
    record = []
    field = ''
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      record.push(field)
      field = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      endRecord()
      i++
    } else if (!crlf && (c === '\n' || c === '\r')) endRecord()
    else field += c
  }
  if (crlf) assert.equal(field, '', 'the document ends with CRLF')
  else if (field !== '' || record.length > 0) endRecord()
  return records
}
