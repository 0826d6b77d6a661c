/**
 * A Pol.is conversation imported with `civic-survey import-polis`, then grouped: `civic-survey opinion-groups` prints
 * everyone's group and place for the operator, and the API publishes the same groups, each person learning only
 * their own place. The agreement with the groups Pol.is published is reported (test/opinion-groups/polis.test.ts).
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { adjustedRandIndex } from '../../src/engines/opinion-groups/index.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { commandDatabase, type CommandDatabase } from '../helpers/databases.ts'
import { runCommand } from '../cli/run-command.ts'
import fs from 'node:fs'
import { parseCsv } from '../helpers/csv.ts'
import { answer, campsCollection, rating } from './camps.ts'
import { insertUser } from '../helpers/fixtures.ts'

const SEATTLE = path.resolve('test/fixtures/polis/15-per-hour-seattle')
let database: CommandDatabase
let collection = 0

const run = (...args: string[]) => runCommand(args, database.env)

before(async () => {
  database = await commandDatabase('empty')
  const imported = await run('import-polis', SEATTLE)
  assert.equal(imported.code, 0, imported.stderr)
  collection = Number(/collection (\d+)/.exec(imported.stderr)![1])
})
after(() => database.cleanup())

test('opinion-groups prints every participant once, and the API publishes the same groups', async () => {
  const printed = await run('opinion-groups', '--collection', String(collection))
  assert.equal(printed.code, 0, printed.stderr)
  const [header, ...rows] = printed.stdout
    .trim()
    .split('\r\n')
    .map((line) => line.split(','))
  assert.deepEqual(header, ['account_id', 'group', 'x', 'y', 'placed'])
  assert.ok(
    rows.every((row) => row[4] === 'model'),
    'nobody holds only private answers here',
  )
  const participants = await database.opened(async ({ db }) =>
    db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('username', 'like', 'polis-%')
      .where('username', '!=', 'polis-import')
      .execute(),
  )
  // Every participant with an answer to a kept comment.
  assert.equal(new Set(rows.map((row) => row[0])).size, rows.length)
  assert.ok(rows.length > 300 && rows.length <= participants.length, `${rows.length} of ${participants.length}`)
  const sizes = new Map<string, number>()
  for (const [, group] of rows) if (group !== '') sizes.set(group, (sizes.get(group) ?? 0) + 1)

  const someone = participants.find((p) => String(p.id) === rows.find((row) => row[1] !== '')![0])!
  const seen = await database.opened(async (handle) => {
    const t: TestApp = await createTestApp('empty', {}, undefined, { database: handle })
    try {
      const anonymous = await t.json(`/api/opinion_groups/?collection=${collection}`)
      const mine = await t.json(`/api/opinion_groups/?collection=${collection}`, { authorization: `Token ${await t.tokenFor(someone.id)}` })
      return { anonymous, mine }
    } finally {
      await t.close()
    }
  })
  const published = new Map<string, number>(seen.anonymous.groups.map((g: { label: number; size: number }) => [String(g.label), g.size]))
  for (const [label, size] of published) assert.equal(sizes.get(label), size, `group ${label}`)
  assert.equal(seen.anonymous.participants, rows.length)
  assert.equal(seen.anonymous.me, null)
  const own = rows.find((row) => row[0] === String(someone.id))!
  assert.equal(String(seen.mine.me.group), own[1])
  assert.ok(Math.abs(seen.mine.me.x - Number(own[2])) < 1e-9 && Math.abs(seen.mine.me.y - Number(own[3])) < 1e-9)

  // The agreement with Pol.is's own groups, over the participants it grouped (docs/opinion-groups.md).
  const polis = parseCsv(fs.readFileSync(path.join(SEATTLE, 'participants-votes.csv'), 'utf8'))
  const polisGroup = new Map(polis.slice(1).map((line) => [line[0], line[1]]))
  const ours: number[] = []
  const theirs: number[] = []
  const byId = new Map(participants.map((p) => [String(p.id), p.username]))
  for (const [account, group] of rows) {
    const participant = byId.get(account)!.split('-').pop()!
    const theirGroup = polisGroup.get(participant)
    if (group === '' || theirGroup === undefined || theirGroup === '') continue
    ours.push(Number(group))
    theirs.push(Number(theirGroup))
  }
  const agreement = adjustedRandIndex(ours, theirs)
  console.log(`15-per-hour-seattle through import-polis and opinion-groups: ARI ${agreement.toFixed(3)} over ${ours.length} participants`)
  assert.ok(agreement > 0.3, `the groups resemble Pol.is's: ARI ${agreement}`)
})

test('opinion-groups refuses a missing or unknown scope in one line, exit status 2', async () => {
  const none = await run('opinion-groups')
  assert.equal(none.code, 2)
  assert.match(none.stderr, /opinion-groups needs one of --collection ID, --tag ID, --group ID/)
  const unknown = await run('opinion-groups', '--collection', '2147483000')
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /there is no collection 2147483000/)
  assert.equal((await run('opinion-groups', '--tag', 'x')).code, 2)
})

test('people who hold only private answers, fewer than MIN_CELL_SIZE of them, are listed as projected, never grouped', async () => {
  const scope = await database.opened(async (handle) => {
    const t: TestApp = await createTestApp('empty', {}, undefined, { database: handle })
    try {
      const { collection: camps, questions } = await campsCollection(t, 24)
      const quiet = []
      for (const i of [0, 1]) {
        const user = await insertUser(handle.db)
        const person = { id: user.id, token: await t.tokenFor(user.id), camp: 'a' as const }
        for (let q = 0; q < 9; q++) await answer(t, person, questions[q], rating('a', q, i), true)
        quiet.push(user.id)
      }
      return { camps, quiet }
    } finally {
      await t.close()
    }
  })
  const printed = await run('opinion-groups', '--collection', String(scope.camps))
  assert.equal(printed.code, 0, printed.stderr)
  const rows = parseCsv(printed.stdout).slice(1)
  assert.equal(rows.length, 26)
  for (const id of scope.quiet) {
    const row = rows.find((r) => r[0] === String(id))
    assert.ok(row, `${id} is listed`)
    assert.deepEqual([row[1], row[4]], ['', 'projection'])
    assert.ok(Number.isFinite(Number(row[2])) && Number.isFinite(Number(row[3])))
  }
  assert.equal(rows.filter((r) => r[4] === 'model').length, 24)
})
