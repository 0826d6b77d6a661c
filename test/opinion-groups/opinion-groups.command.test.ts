/**
 * Pol.is conversations imported with `civic-survey import-polis`, then grouped on Pol.is's map: `civic-survey
 * opinion-groups` prints everyone's group and place for the operator, and the API publishes the same groups, each
 * person learning only their own place. ubi's groups agree with Pol.is's at 0.85 or more, seattle's are reported
 * (test/opinion-groups/polis.test.ts measures the engine alone). `--groups K`, `--polis-code` and staff's
 * `?groups=K` compute other groupings without keeping them.
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
const UBI = path.resolve('test/fixtures/polis/scoop-hivemind.ubi')
const UBI_META = '32,33,34,35,36,37,38,39,40,41,42'
let database: CommandDatabase
let collection = 0
let ubi = 0

const run = (...args: string[]) => runCommand(args, database.env)

before(async () => {
  database = await commandDatabase('empty')
  const imported = await run('import-polis', SEATTLE)
  assert.equal(imported.code, 0, imported.stderr)
  collection = Number(/collection (\d+)/.exec(imported.stderr)![1])
  const ubiImported = await run('import-polis', UBI, '--meta', UBI_META)
  assert.equal(ubiImported.code, 0, ubiImported.stderr)
  ubi = Number(/collection (\d+)/.exec(ubiImported.stderr)![1])
})

/** The ARI between the printed groups and Pol.is's, over the participants both grouped. */
async function agreementWithPolis(printed: string, dir: string): Promise<{ ari: number; compared: number; groups: number }> {
  const rows = parseCsv(printed).slice(1)
  const usernames = await database.opened(async ({ db }) =>
    db.selectFrom('users').select(['id', 'username']).where('username', 'like', 'polis-%').execute(),
  )
  const byId = new Map(usernames.map((p) => [String(p.id), p.username]))
  const polisGroup = new Map(
    parseCsv(fs.readFileSync(path.join(dir, 'participants-votes.csv'), 'utf8'))
      .slice(1)
      .map((line) => [line[0], line[1]]),
  )
  const ours: number[] = []
  const theirs: number[] = []
  for (const [account, group] of rows) {
    const theirGroup = polisGroup.get(byId.get(account)!.split('-').pop()!)
    if (group === '' || group === undefined || theirGroup === undefined || theirGroup === '') continue
    ours.push(Number(group))
    theirs.push(Number(theirGroup))
  }
  return { ari: adjustedRandIndex(ours, theirs), compared: ours.length, groups: new Set(ours).size }
}

/** The app on the command's database, for `work`. */
const throughHttp = <T>(work: (t: TestApp) => Promise<T>) =>
  database.opened(async (handle) => {
    const t: TestApp = await createTestApp('empty', {}, undefined, { database: handle })
    try {
      return await work(t)
    } finally {
      await t.close()
    }
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
  const agreement = await agreementWithPolis(printed.stdout, SEATTLE)
  console.log(
    `15-per-hour-seattle through import-polis and opinion-groups: ARI ${agreement.ari.toFixed(3)} over ${agreement.compared} participants`,
  )
  assert.match(seen.anonymous.map_rules, /^Pol\.is's, as its code of 2019-02-13 drew it: statements moderated out or meta zeroed/)
})

test("ubi, its meta statements named at import, through the command: Pol.is's map of 2017 and its groups", async () => {
  const printed = await run('opinion-groups', '--collection', String(ubi))
  assert.equal(printed.code, 0, printed.stderr)
  const agreement = await agreementWithPolis(printed.stdout, UBI)
  console.log(`scoop-hivemind.ubi through import-polis --meta and opinion-groups: ARI ${agreement.ari.toFixed(3)}, k = ${agreement.groups}`)
  assert.equal(agreement.compared, 234)
  assert.ok(agreement.ari >= 0.85, `ARI ${agreement.ari}`)
  const published = await throughHttp((t) => t.json(`/api/opinion_groups/?collection=${ubi}`))
  assert.equal(published.groups.length, agreement.groups)
  assert.match(
    published.map_rules,
    /^Pol\.is's, as its code of 2017-08-23 drew it: .* zeroed .*; a missing vote is 0; who is grouped counts/,
  )
  // The meta statements are no question of the groups.
  const texts = published.questions.map((q: { text: string }) => q.text)
  assert.equal(texts.length, 59)
  assert.ok(!texts.some((text: string) => /^I am (male|Female|currently working)/.test(text)))
})

test('--groups K and --polis-code compute other groupings for the operator, and keep nothing', async () => {
  const kept = await throughHttp((t) => t.json(`/api/opinion_groups/?collection=${ubi}`))
  const two = await run('opinion-groups', '--collection', String(ubi), '--groups', '2')
  assert.equal(two.code, 0, two.stderr)
  assert.equal((await agreementWithPolis(two.stdout, UBI)).groups, 2)
  const older = await run('opinion-groups', '--collection', String(ubi), '--polis-code', '2016-12-31', '--groups', '4')
  assert.equal(older.code, 0, older.stderr)
  const before = await agreementWithPolis(older.stdout, UBI)
  // Before 2017-02-27 Pol.is's code kept the meta statements as columns: its groups were other ones.
  assert.ok(before.ari < 0.85, `ARI ${before.ari}`)
  const after = await throughHttp((t) => t.json(`/api/opinion_groups/?collection=${ubi}`))
  assert.deepEqual([after.computed_at, after.groups], [kept.computed_at, kept.groups])
  for (const bad of [
    ['--groups', '1'],
    ['--groups', 'x'],
    ['--polis-code', '2017-13-01'],
  ]) {
    const refused = await run('opinion-groups', '--collection', String(ubi), ...bad)
    assert.equal(refused.code, 2, bad.join(' '))
    assert.match(refused.stderr, /^opinion-groups: --(groups|polis-code) must be/)
  }
})

test('?groups=K: staff get the groups at that k, computed now and not kept; anyone else is refused', async () => {
  await throughHttp(async (t) => {
    const kept = await t.json(`/api/opinion_groups/?collection=${ubi}`)
    const staff = await insertUser(t.database.db, { is_staff: true })
    const someone = await insertUser(t.database.db)
    const asStaff = { authorization: `Token ${await t.tokenFor(staff.id)}` }
    const three = await t.json(`/api/opinion_groups/?collection=${ubi}&groups=3`, asStaff)
    assert.equal(three.group_count.found, 3)
    assert.equal(three.me, null)
    assert.equal((await t.get(`/api/opinion_groups/?collection=${ubi}&groups=3&format=csv`, asStaff)).statusCode, 200)
    assert.equal((await t.get(`/api/opinion_groups/?collection=${ubi}&groups=3`)).statusCode, 403)
    assert.equal(
      (await t.get(`/api/opinion_groups/?collection=${ubi}&groups=3`, { authorization: `Token ${await t.tokenFor(someone.id)}` }))
        .statusCode,
      403,
    )
    assert.equal((await t.get(`/api/opinion_groups/?collection=${ubi}&groups=1`, asStaff)).statusCode, 400)
    assert.equal((await t.get(`/api/opinion_groups/?collection=2147483000&groups=3`, asStaff)).statusCode, 404)
    const after = await t.json(`/api/opinion_groups/?collection=${ubi}`)
    assert.deepEqual([after.computed_at, after.groups], [kept.computed_at, kept.groups])
  })
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
