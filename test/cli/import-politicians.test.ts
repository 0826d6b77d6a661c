import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { FIXTURES, importScratch, snapshot } from './import-helpers.ts'

const SAMPLE = path.join(FIXTURES, 'politicians.csv')
let scratch: Awaited<ReturnType<typeof importScratch>>

before(async () => {
  scratch = await importScratch()
  assert.equal((await scratch.run(['migrate'])).code, 0)
  await scratch.query((db) =>
    db
      .insertInto('areas')
      .values([
        { code: 'E12000007', name: 'London', m_type: 'region' },
        { code: 'K02000001', name: 'United Kingdom', m_type: 'country' },
        { code: 'DUP', name: 'Twice as region', m_type: 'region' },
        { code: 'DUP', name: 'Twice as county', m_type: 'county' },
      ])
      .execute(),
  )
})
after(() => scratch.cleanup())

const COLUMNS = [
  'external_id',
  'name',
  'sort_name',
  'party',
  'party_id',
  'area_id',
  'area_name',
  'chamber',
  'term',
  'start_date',
  'end_date',
  'email',
  'gender',
  'type',
  'statement',
] as const

test('a politicians file imports each line, its area found by code, quoted fields kept whole', async () => {
  const result = await scratch.run(['import-politicians', SAMPLE])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stderr, /imported 3 politicians \(3 created, 0 updated\)/)
  await scratch.query(async (db) => {
    const areas = new Map((await db.selectFrom('areas').select(['id', 'code']).execute()).map((a) => [a.code, a.id]))
    const rows = await db.selectFrom('politicians').select(COLUMNS).orderBy('id').execute()
    assert.deepEqual(rows, [
      {
        external_id: 'mp-9001',
        name: 'Ada Example',
        sort_name: 'Example, Ada',
        party: 'Green Party',
        party_id: 'green',
        area_id: areas.get('E12000007'),
        area_name: 'London',
        chamber: 'House of Commons',
        term: '2024–2029',
        start_date: '2024-07-04',
        end_date: null,
        email: 'ada.example.mp@parliament.example.org',
        gender: 'female',
        type: 'mp',
        statement: 'Housing first, then transport.\nAlso: "clean air".',
      },
      {
        external_id: null,
        name: 'Ben Sample',
        sort_name: 'Sample, Ben',
        party: 'Independent',
        party_id: 'independent',
        area_id: null,
        area_name: '',
        chamber: '',
        term: '',
        start_date: null,
        end_date: null,
        email: '',
        gender: 'male',
        type: 'candidate',
        statement: '',
      },
      {
        external_id: 'ppc-9002',
        name: 'Cy Placeholder',
        sort_name: 'Placeholder, Cy',
        party: 'Labour Party',
        party_id: 'labour',
        area_id: areas.get('K02000001'),
        area_name: 'United Kingdom',
        chamber: 'House of Commons',
        term: '2029–2034',
        start_date: '2025-01-15',
        end_date: '2029-05-01',
        email: '',
        gender: '',
        type: 'candidate',
        statement: 'Fair pay.',
      },
    ])
  })
})

test('a line with a known external_id updates that politician, only in the columns the file has', async () => {
  const file = scratch.file(
    'update.csv',
    'ID,Group,area_code,area_type\nmp-9001,Blue Party,DUP,county\nnew-1,Red Party,,\n'
      .replace('ID,', 'ID,name,')
      .replace('mp-9001,', 'mp-9001,Ada Example-Smith,')
      .replace('new-1,', 'new-1,Dee New,'),
  )
  const result = await scratch.run(['import-politicians', file])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stderr, /imported 2 politicians \(1 created, 1 updated\)/)
  await scratch.query(async (db) => {
    const county = await db
      .selectFrom('areas')
      .select('id')
      .where('code', '=', 'DUP')
      .where('m_type', '=', 'county')
      .executeTakeFirstOrThrow()
    const ada = await db.selectFrom('politicians').select(COLUMNS).where('external_id', '=', 'mp-9001').execute()
    assert.equal(ada.length, 1)
    assert.deepEqual(
      {
        name: ada[0].name,
        party: ada[0].party,
        area_id: ada[0].area_id,
        area_name: ada[0].area_name,
        term: ada[0].term,
        sort_name: ada[0].sort_name,
      },
      {
        name: 'Ada Example-Smith',
        party: 'Blue Party',
        area_id: county.id,
        area_name: 'Twice as county',
        term: '2024–2029',
        sort_name: 'Example, Ada',
      },
    )
    const dee = await db.selectFrom('politicians').select(COLUMNS).where('external_id', '=', 'new-1').executeTakeFirstOrThrow()
    assert.deepEqual([dee.name, dee.party, dee.area_id, dee.type], ['Dee New', 'Red Party', null, 'candidate'])
    assert.equal((await db.selectFrom('politicians').select('id').execute()).length, 4)
  })
})

test('a bad line rejects the whole file with its line number, exit status 2, and nothing changes', async () => {
  const before = await scratch.query((db) => snapshot(db, 'politicians'))
  const head = 'external_id,name,area_code,start_date\n'
  const good = 'x-1,Good One,E12000007,2024-01-01\nx-2,Good Two,,\n'
  const cases: [string, string, RegExp][] = [
    [
      'date',
      head + good + 'x-3,Bad Date,,2024-13-01\n',
      /^import-politicians: line 4: start_date "2024-13-01" is not a date YYYY-MM-DD; nothing was imported$/,
    ],
    ['area', head + good + 'x-3,Nowhere,ZZ999,\n', /^import-politicians: line 4: no area has the area_code "ZZ999"; nothing was imported$/],
    [
      'ambiguous',
      head + good + 'x-3,Twice,DUP,\n',
      /^import-politicians: line 4: 2 areas have the area_code "DUP" \(region, county\): add an area_type column; nothing was imported$/,
    ],
    ['name', head + good + 'x-3,,,\n', /^import-politicians: line 4: the name is empty; nothing was imported$/],
    ['columns', head + good + 'x-3,Short\n', /^import-politicians: line 4: 2 columns where the header has 4; nothing was imported$/],
    [
      'duplicate',
      head + good + 'x-1,Again,,\n',
      /^import-politicians: line 4: external_id "x-1" is already on line 2; nothing was imported$/,
    ],
    [
      'header',
      'external_id,name,party_colour\n' + 'x-1,A,red\n',
      /^import-politicians: line 1: unknown header "party_colour" in column 3 .*; nothing was imported$/,
    ],
    ['quote', head + good + 'x-3,"Never closed,,\n', /^import-politicians: line 4: a quoted field is never closed; nothing was imported$/],
  ]
  for (const [name, text, message] of cases) {
    const result = await scratch.run(['import-politicians', scratch.file(`${name}.csv`, text)])
    assert.equal(result.code, 2, `${name}: ${result.stderr}`)
    assert.equal(result.stderr.trim().split('\n').length, 1, `${name}: one line`)
    assert.match(result.stderr.trim(), message, name)
  }
  assert.deepEqual(await scratch.query((db) => snapshot(db, 'politicians')), before)
})
