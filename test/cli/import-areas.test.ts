import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { FIXTURES, importScratch, snapshot } from './import-helpers.ts'

const SAMPLE = path.join(FIXTURES, 'areas.geojson')
let scratch: Awaited<ReturnType<typeof importScratch>>

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≈ ${expected}`)

before(async () => {
  scratch = await importScratch()
  assert.equal((await scratch.run(['migrate'])).code, 0)
  await scratch.query((db) => db.insertInto('areas').values({ code: 'GB', name: 'United Kingdom', m_type: 'country' }).execute())
})
after(() => scratch.cleanup())

test('a FeatureCollection imports: points kept, polygon centroids, parents resolved by code wherever they are', async () => {
  const result = await scratch.run(['import-areas', SAMPLE])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stderr, /imported 3 areas \(3 created, 0 updated\)/)
  await scratch.query(async (db) => {
    const rows = await db.selectFrom('areas').selectAll().where('code', 'like', 'T%').orderBy('code').execute()
    const [ward, borough, region] = rows
    assert.deepEqual(
      rows.map((r) => [r.code, r.name, r.m_type, r.type_description]),
      [
        ['T10000001', 'Riverside Ward', 'ward', null],
        ['T20000001', 'Holed Borough', 'district', 'Borough'],
        // The ONS boundary files' RGN22CD/RGN22NM give the code, the name and the level.
        ['T30000001', 'Island Region', 'region', null],
      ],
    )
    // The ward comes before its parent in the file, the borough before the region.
    assert.equal(ward.parent_id, borough.id)
    assert.equal(borough.parent_id, region.id)
    assert.equal(region.parent_id, null)
    assert.deepEqual([ward.longitude, ward.latitude], [1.25, 51.75])
    // 4×4 square at (0, 50) with a 2×2 hole in its top-right corner: (16·(2, 52) − 4·(3, 53)) / 12.
    close(borough.longitude, (16 * 2 - 4 * 3) / 12)
    close(borough.latitude, (16 * 52 - 4 * 53) / 12)
    // A 1×1 square centred (10.5, 40.5) and a 2×2 one centred (13, 41): (1·(10.5, 40.5) + 4·(13, 41)) / 5.
    close(region.longitude, (10.5 + 4 * 13) / 5)
    close(region.latitude, (40.5 + 4 * 41) / 5)
  })
})

test('a re-import updates the areas in place (same ids) and a parent may be an area of the database', async () => {
  const before = await scratch.query((db) => db.selectFrom('areas').select(['id', 'code']).orderBy('id').execute())
  const file = scratch.file(
    'update.geojson',
    JSON.stringify({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: { code: 'T30000001', name: 'Island Region (renamed)', level: 'region', parent: 'GB' },
          geometry: { type: 'Point', coordinates: [-3, 55] },
        },
      ],
    }),
  )
  const result = await scratch.run(['import-areas', file])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stderr, /imported 1 areas \(0 created, 1 updated\)/)
  await scratch.query(async (db) => {
    assert.deepEqual(await db.selectFrom('areas').select(['id', 'code']).orderBy('id').execute(), before)
    const region = await db.selectFrom('areas').selectAll().where('code', '=', 'T30000001').executeTakeFirstOrThrow()
    const gb = await db.selectFrom('areas').select('id').where('code', '=', 'GB').executeTakeFirstOrThrow()
    assert.deepEqual([region.name, region.parent_id, region.longitude, region.latitude], ['Island Region (renamed)', gb.id, -3, 55])
  })
})

test('a bad feature rejects the whole file with its index, exit status 2, and nothing changes', async () => {
  const before = await scratch.query((db) => snapshot(db, 'areas'))
  const feature = (properties: Record<string, unknown>, geometry: unknown = { type: 'Point', coordinates: [0, 51] }) => ({
    type: 'Feature',
    properties,
    geometry,
  })
  const good = [feature({ code: 'N1', name: 'New one', level: 'district' }), feature({ code: 'T10000001', name: 'Changed', level: 'ward' })]
  const cases: [string, unknown[], RegExp][] = [
    ['name', [...good, feature({ code: 'N2', level: 'district' })], /features\[2\] \(code "N2"\): the properties have no name/],
    [
      'parent',
      [...good, feature({ code: 'N3', name: 'x', level: 'ward', parent_code: 'NOPE' })],
      /features\[2\] \(code "N3"\): the parent code "NOPE" is neither in the file nor in the database/,
    ],
    [
      'geometry',
      [...good, feature({ code: 'N4', name: 'x', level: 'ward' }, { type: 'LineString', coordinates: [] })],
      /features\[2\] \(code "N4"\): geometry type "LineString" is not Point, Polygon or MultiPolygon/,
    ],
    [
      'latitude',
      [feature({ code: 'N5', name: 'x', level: 'ward' }, { type: 'Point', coordinates: [0, 95] }), ...good],
      /features\[0\] \(code "N5"\): latitude 95 is outside -90 to 90/,
    ],
    [
      'duplicate',
      [...good, feature({ code: 'N1', name: 'again', level: 'district' })],
      /features\[2\] \(code "N1"\): the code and level "district" are already those of features\[0\]/,
    ],
    [
      'cycle',
      [
        feature({ code: 'C1', name: 'a', level: 'x', parent_code: 'C2' }),
        feature({ code: 'C2', name: 'b', level: 'x', parent_code: 'C1' }),
      ],
      /features\[0\] \(code "C1"\): the parents of the file make a cycle/,
    ],
    // GB is in the database; the file puts it under T30000001, whose parent in the database is GB.
    [
      'database cycle',
      [feature({ code: 'GB', name: 'United Kingdom', level: 'country', parent_code: 'T30000001' })],
      /features\[0\] \(code "GB"\): its parent is one of its own descendants/,
    ],
  ]
  for (const [name, features, message] of cases) {
    const result = await scratch.run([
      'import-areas',
      scratch.file(`${name}.geojson`, JSON.stringify({ type: 'FeatureCollection', features })),
    ])
    assert.equal(result.code, 2, `${name}: ${result.stderr}`)
    assert.equal(result.stderr.trim().split('\n').length, 1, `${name}: one line`)
    assert.match(result.stderr, /^import-areas: /)
    assert.match(result.stderr, message, name)
    assert.match(result.stderr.trim(), /; nothing was imported$/)
  }
  const notJson = scratch.spawned(['import-areas', scratch.file('broken.geojson', '{"type": "FeatureCollection", ')])
  assert.equal(notJson.code, 2)
  assert.match(notJson.stderr, /^import-areas: not JSON: /)
  assert.deepEqual(await scratch.query((db) => snapshot(db, 'areas')), before)
})
