import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import { FIXTURES, importScratch, snapshot } from './import-helpers.ts'

const SAMPLE = path.join(FIXTURES, 'census-mye2.csv')
let scratch: Awaited<ReturnType<typeof importScratch>>

/** The sample's records read plainly: its lines after the header, split at commas. */
function sampleRecords(text = fs.readFileSync(SAMPLE, 'utf8')) {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  const header = lines.findIndex((line) => line.startsWith('Code,'))
  return lines.slice(header + 1).map((line) => {
    const cells = line.split(',')
    return { code: cells[0], name: cells[1], allAges: Number(cells[3]), ages: cells.slice(4).map(Number) }
  })
}

function censusLines(rows: { code: string; name: string; ages: number[]; allAges?: number }[], header?: string) {
  const head = header ?? `Code,Name,Geography,All ages,${Array.from({ length: 90 }, (_, a) => a).join(',')},90+`
  return (
    [head, ...rows.map((r) => `${r.code},${r.name},Region,${r.allAges ?? r.ages.reduce((s, v) => s + v, 0)},${r.ages.join(',')}`)].join(
      '\n',
    ) + '\n'
  )
}

const flat = (n: number) => Array.from({ length: 91 }, (_, age) => (age * 7 + n) % 50)

before(async () => {
  scratch = await importScratch()
  assert.equal((await scratch.run(['migrate'])).code, 0)
  // Two of the sample's codes are areas already: their records are linked to them.
  await scratch.query(async (db) => {
    await db
      .insertInto('areas')
      .values([
        { code: 'E12000007', name: 'London', m_type: 'region' },
        { code: 'K02000001', name: 'United Kingdom', m_type: 'country' },
        // A code two areas share (at two levels) links to neither.
        { code: 'E06000001', name: 'Hartlepool', m_type: 'district' },
        { code: 'E06000001', name: 'Hartlepool', m_type: 'county' },
      ])
      .execute()
  })
})
after(() => scratch.cleanup())

test('an ONS mid-year estimates file imports every record, dated, with its ages and area', async () => {
  const result = await scratch.run(['import-census', SAMPLE, '--date', '2021-06-30'])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stderr, /imported 4 census records dated 2021-06-30 \(0 replaced, 2 linked to areas\)/)
  const expected = sampleRecords()
  await scratch.query(async (db) => {
    const rows = await db.selectFrom('census_data').selectAll().orderBy('code').execute()
    const areas = new Map((await db.selectFrom('areas').select(['id', 'code']).execute()).map((a) => [a.code, a.id]))
    assert.deepEqual(
      rows.map((r) => ({ code: r.code, name: r.name, date: r.date, allAges: r.all_ages, ages: r.ages, area: r.area_id })),
      [...expected]
        .sort((a, b) => (a.code < b.code ? -1 : 1))
        .map((e) => ({
          code: e.code,
          name: e.name,
          date: '2021-06-30',
          allAges: e.allAges,
          ages: e.ages,
          area: e.code === 'E12000007' || e.code === 'K02000001' ? areas.get(e.code) : null,
        })),
    )
    for (const e of expected) assert.equal(e.ages.length, 91)
  })
})

test('a re-import of a date replaces that date only; another date is kept', async () => {
  const older = scratch.file('older.csv', censusLines([{ code: 'E12000007', name: 'London', ages: flat(1) }]))
  assert.equal((await scratch.run(['import-census', older, '--date', '2011-06-30'])).code, 0)
  const replacement = scratch.file(
    'replacement.csv',
    censusLines([
      { code: 'E12000007', name: 'London', ages: flat(2) },
      { code: 'W92000004', name: 'Wales', ages: flat(3) },
    ]),
  )
  const result = await scratch.run(['import-census', replacement, '--date', '2021-06-30'])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stderr, /imported 2 census records dated 2021-06-30 \(4 replaced, 1 linked to areas\)/)
  await scratch.query(async (db) => {
    const rows = await db.selectFrom('census_data').select(['code', 'date', 'ages', 'all_ages']).orderBy('date').orderBy('code').execute()
    assert.deepEqual(rows, [
      { code: 'E12000007', date: '2011-06-30', ages: flat(1), all_ages: flat(1).reduce((s, v) => s + v, 0) },
      { code: 'E12000007', date: '2021-06-30', ages: flat(2), all_ages: flat(2).reduce((s, v) => s + v, 0) },
      { code: 'W92000004', date: '2021-06-30', ages: flat(3), all_ages: flat(3).reduce((s, v) => s + v, 0) },
    ])
  })
})

test('a bad row stops the import with one line naming its line, exit status 2, and nothing changes', async () => {
  const before = await scratch.query((db) => snapshot(db, 'census_data'))
  const good = (code: string, n: number): { code: string; name: string; ages: number[]; allAges?: number } => ({
    code,
    name: code,
    ages: flat(n),
  })
  const cases: { name: string; text: string; message: RegExp }[] = [
    {
      name: 'sum',
      text: censusLines([good('A1', 1), good('A2', 2), { ...good('A3', 3), allAges: 5 }]),
      message: /^import-census: line 4: ages 0 to 90\+ add up to \d+, but All ages is 5; nothing was imported$/,
    },
    {
      name: 'columns',
      text: censusLines([good('A1', 1)]) + 'A2,A2,Region,3,1,2\n',
      message: /^import-census: line 3: 6 columns where the header has 95; nothing was imported$/,
    },
    {
      name: 'not-integer',
      text:
        censusLines([good('A1', 1)]) +
        censusLines([good('A2', 2)])
          .split('\n')[1]
          .replace(/,(\d+)$/, ',1.5') +
        '\n',
      message: /^import-census: line 3: age 90\+: "1\.5" is not a whole number of people; nothing was imported$/,
    },
    {
      name: 'header',
      text: censusLines([good('A1', 1)], `Code,Name,Geography,All ages,${Array.from({ length: 90 }, (_, a) => a).join(',')},91`),
      message:
        /^import-census: line 1: unknown header "91" in column 95, where age 90 belongs; expected the header .*; nothing was imported$/,
    },
    {
      name: 'duplicate',
      text: censusLines([good('A1', 1), good('A2', 2), good('A1', 3)]),
      message: /^import-census: line 4: the code "A1" is already on line 2; nothing was imported$/,
    },
  ]
  for (const c of cases) {
    // A large good part first, so that earlier batches were written before the bad line rolled them back.
    const result = await scratch.run(['import-census', scratch.file(`bad-${c.name}.csv`, c.text), '--date', '2021-06-30'])
    assert.equal(result.code, 2, `${c.name}: ${result.stderr}`)
    assert.equal(result.stderr.trim().split('\n').length, 1, `${c.name}: one line`)
    assert.match(result.stderr.trim(), c.message)
  }
  // Bad rows after thousands of good ones (several batches already written) leave nothing either.
  const many = Array.from({ length: 12_000 }, (_, i) => good(`Z${i}`, i))
  many.push({ ...good('Zbad', 1), allAges: 1 })
  const result = await scratch.run(['import-census', scratch.file('bad-late.csv', censusLines(many)), '--date', '2021-06-30'])
  assert.equal(result.code, 2, result.stderr)
  assert.match(result.stderr, /^import-census: line 12002: ages 0 to 90\+ add up to/)
  assert.deepEqual(await scratch.query((db) => snapshot(db, 'census_data')), before)
})

test('headers in other spellings, spreadsheet-grouped numbers, no geography column and undated records', async () => {
  const ages = flat(5).map((v) => v * 400)
  const total = ages.reduce((s, v) => s + v, 0)
  const grouped = (n: number) => (n >= 1000 ? `"${n.toLocaleString('en-GB')}"` : String(n))
  const text =
    `\uFEFFAREA CODE,area name,ALL_AGES,${Array.from({ length: 90 }, (_, a) => `Age ${a}`).join(',')},90 and over\r\n` +
    `S92000003,"Scotland, the nation",${grouped(total)},${ages.map(grouped).join(',')}\r\n` +
    // Characters that COPY's text format escapes arrive as written.
    `S92000004,"Back\\slash\tand tab",${grouped(total)},${ages.map(grouped).join(',')}\r\n`
  const result = await scratch.run(['import-census', scratch.file('spelling.csv', text)])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stderr, /imported 2 census records dated none/)
  await scratch.query(async (db) => {
    const row = await db.selectFrom('census_data').selectAll().where('code', '=', 'S92000003').executeTakeFirstOrThrow()
    assert.deepEqual(
      { name: row.name, date: row.date, all_ages: row.all_ages, ages: row.ages },
      { name: 'Scotland, the nation', date: null, all_ages: total, ages },
    )
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM census_data WHERE date IS NULL`.execute(db)
    assert.equal(rows[0].n, 2)
    const escaped = await db.selectFrom('census_data').select('name').where('code', '=', 'S92000004').executeTakeFirstOrThrow()
    assert.equal(escaped.name, 'Back\\slash\tand tab')
  })
})

test('bad arguments: a missing file, no file, a bad date', () => {
  const missing = scratch.spawned(['import-census', path.join(FIXTURES, 'no-such-file.csv')])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr.trim(), /^import-census: .*no-such-file\.csv: no such file; nothing was imported$/)
  assert.equal(scratch.spawned(['import-census']).code, 2)
  const date = scratch.spawned(['import-census', SAMPLE, '--date', '2021-02-30'])
  assert.equal(date.code, 2)
  assert.match(date.stderr, /--date must be a date YYYY-MM-DD, not "2021-02-30"/)
})
