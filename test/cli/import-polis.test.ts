import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { readCsv } from '../../src/import/csv.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { commandDatabase, type CommandDatabase } from '../helpers/databases.ts'
import { runCommand } from './run-command.ts'
import { insertUser } from '../helpers/fixtures.ts'

const POLIS = path.resolve('test/fixtures/polis')
const SEATTLE = path.join(POLIS, '15-per-hour-seattle')
const LIKERT: Record<string, number> = { '1': 5, '0': 3, '-1': 1 }

let database: CommandDatabase
let exports: string
/** The collection the first import of the Seattle conversation made. */
let seattle = 0

before(async () => {
  database = await commandDatabase('empty')
  exports = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-polis-'))
  assert.equal((await run('migrate')).code, 0)
})
after(async () => {
  fs.rmSync(exports, { recursive: true, force: true })
  await database.cleanup()
})

const run = (...args: string[]) => runCommand(args, database.env)

const query = <T>(work: (db: Kysely<Database>) => Promise<T>) => database.opened((handle) => work(handle.db))

/** What a client sees: the app on the command's database. */
const throughHttp = <T>(work: (t: TestApp) => Promise<T>) =>
  database.opened(async (handle) => {
    const t = await createTestApp('empty', {}, undefined, { database: handle })
    try {
      return await work(t)
    } finally {
      await t.close()
    }
  })

/** An export directory of these files: copies of the Seattle conversation's, or the text given. */
function exportDir(name: string, files: Record<string, string | null>): string {
  const dir = path.join(exports, name)
  fs.mkdirSync(dir)
  for (const [file, text] of Object.entries(files))
    fs.writeFileSync(path.join(dir, file), text ?? fs.readFileSync(path.join(SEATTLE, file)))
  return dir
}

async function rows(file: string): Promise<Record<string, string>[]> {
  const out: Record<string, string>[] = []
  let header: string[] | null = null
  for await (const { fields } of readCsv(file)) {
    if (header) out.push(Object.fromEntries(header.map((name, i) => [name, fields[i]])))
    else header = fields
  }
  return out
}

/** The Seattle comments kept (not moderated out), by comment id. */
async function keptComments(): Promise<{ id: number; text: string }[]> {
  return (await rows(path.join(SEATTLE, 'comments.csv')))
    .filter((row) => row.moderated !== '-1')
    .map((row) => ({ id: Number(row['comment-id']), text: row['comment-body'].trim() }))
    .sort((a, b) => a.id - b.id)
}

/** `comment:participant` → the likert value of the latest vote in votes.csv, and its time. */
async function latestVotes(): Promise<Map<string, { value: number; at: number }>> {
  const latest = new Map<string, { value: number; at: number }>()
  for (const row of await rows(path.join(SEATTLE, 'votes.csv'))) {
    const key = `${row['comment-id']}:${row['voter-id']}`
    const at = Number(row.timestamp)
    if (!(at < (latest.get(key)?.at ?? -1))) latest.set(key, { value: LIKERT[row.vote], at })
  }
  return latest
}

/** `comment:participant` → the likert value of each cell of participants-votes.csv. */
async function matrixVotes(): Promise<Map<string, number>> {
  const votes = new Map<string, number>()
  for (const row of await rows(path.join(SEATTLE, 'participants-votes.csv')))
    for (const [column, cell] of Object.entries(row))
      if (/^\d+$/.test(column) && cell !== '') votes.set(`${column}:${row.participant}`, LIKERT[cell])
  return votes
}

/** The stored answers of a collection's questions: `comment:participant` → value (the items' order is the comment id). */
async function storedAnswers(t: TestApp, collection: number) {
  const stored = await t.database.db
    .selectFrom('question_votes as v')
    .innerJoin('question_collection_items as i', (join) =>
      join.onRef('i.question_id', '=', 'v.question_id').on('i.parent_id', '=', collection),
    )
    .innerJoin('users as u', 'u.id', 'v.user_id')
    .select(['i.order', 'u.username', 'v.value', 'v.private', 'v.collection_id', 'v.modified_at'])
    .execute()
  return new Map(stored.map((row) => [`${row.order}:${row.username.split('-').pop()}`, row]))
}

/** What the collection's questions show a client: comment id → [text, agree, pass, disagree, author]. */
async function questionsSeen(t: TestApp, collection: number): Promise<Map<number, unknown[]>> {
  const items = (await t.json(`/api/question_collection_items/?parent=${collection}&ordering=order&page_size=100`)).results
  return new Map(
    items.map((item: any) => {
      const q = item.content_object
      assert.deepEqual([q.subtype, q.publish, q.liquid_maximum, q.liquid_minimum], ['likert', true, q.direct_maximum, q.direct_minimum])
      return [item.order, [q.question, q.direct_maximum, q.direct_medium, q.direct_minimum, q.user.username]]
    }),
  )
}

/** Counts per comment (agree, pass, disagree) of answers keyed `comment:participant`. */
function countsOf(votes: Map<string, number>): Map<number, number[]> {
  const counts = new Map<number, number[]>()
  for (const [key, value] of votes) {
    const comment = Number(key.split(':')[0])
    const row = counts.get(comment) ?? counts.set(comment, [0, 0, 0]).get(comment)!
    row[value === 5 ? 0 : value === 3 ? 1 : 2]++
  }
  return counts
}

const tableSizes = () =>
  query(async (db) => {
    const sizes: Record<string, unknown> = {}
    for (const table of ['users', 'questions', 'question_votes', 'question_collections', 'question_collection_items'] as const)
      sizes[table] = (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n
    return sizes
  })

test('votes.csv: the comments kept as likert questions in comment order, an account a participant, their latest votes as answers', async () => {
  const result = await run('import-polis', SEATTLE)
  assert.equal(result.code, 0, result.stderr)
  const kept = await keptComments()
  const latest = await latestVotes()
  const keptIds = new Set(kept.map((comment) => String(comment.id)))
  const answers = new Map([...latest].filter(([key]) => keptIds.has(key.split(':')[0])))
  const line = result.stderr.trim()
  const all = latest.size.toLocaleString('en-US')
  const pattern = `^imported 31 comments as questions, 23 moderated out and 0 meta kept unpublished, 339 participants, ${all} answers from votes\\.csv into collection (\\d+) "\\$15/hour" in \\d+\\.\\d s$`
  assert.match(line, new RegExp(pattern))
  seattle = Number(new RegExp(pattern).exec(line)![1])

  const authors = new Map((await rows(path.join(SEATTLE, 'comments.csv'))).map((row) => [Number(row['comment-id']), row['author-id']]))
  const counts = countsOf(new Map([...answers].map(([key, { value }]) => [key, value])))
  await throughHttp(async (t) => {
    const collection = await t.json(`/api/question_collections/${seattle}/`)
    assert.deepEqual(
      [collection.name, collection.desc, collection.question_count, collection.item_count, collection.username],
      [
        '$15/hour',
        'How do you think the new minimum wage law will affect Seattle? Will it be for the better or for the worse? Why?',
        31,
        31,
        'polis-import',
      ],
    )
    const seen = await questionsSeen(t, seattle)
    assert.deepEqual(
      [...seen.keys()],
      kept.map((comment) => comment.id),
    )
    for (const { id, text } of kept)
      assert.deepEqual(seen.get(id), [text, ...(counts.get(id) ?? [0, 0, 0]), `polis-2demo-${authors.get(id)}`], `comment ${id}`)

    const stored = await storedAnswers(t, seattle)
    // Every vote is kept, those on comments moderated out too (their questions are unpublished).
    assert.equal(stored.size, latest.size)
    for (const [key, { value, at }] of latest) {
      const answer = stored.get(key)
      assert.deepEqual(
        [answer?.value, answer?.private, answer?.collection_id, answer?.modified_at.getTime()],
        [value, false, seattle, at],
        key,
      )
    }
  })
})

test("participants-votes.csv gives the same answers as votes.csv's latest votes, at the import's time", async () => {
  const dir = exportDir('seattle-matrix', { 'comments.csv': null, 'participants-votes.csv': null })
  const result = await run('import-polis', dir)
  assert.equal(result.code, 0, result.stderr)
  const match =
    /^imported 31 comments as questions, 23 moderated out and 0 meta kept unpublished, 339 participants, ([\d,]+) answers from participants-votes\.csv into collection (\d+) "seattle-matrix" in/.exec(
      result.stderr,
    )
  assert.ok(match, result.stderr)
  const collection = Number(match[2])

  const kept = new Set((await keptComments()).map((comment) => String(comment.id)))
  const matrix = await matrixVotes()
  const values = (answers: Map<string, { value: number | null }>) => new Map([...answers].map(([key, answer]) => [key, answer.value]))
  await throughHttp(async (t) => {
    const fromMatrix = await storedAnswers(t, collection)
    assert.deepEqual(values(fromMatrix), matrix)
    assert.deepEqual(values(fromMatrix), values(await storedAnswers(t, seattle)))
    // No time in the file: every answer is as old as the import.
    assert.equal(new Set([...fromMatrix.values()].map((answer) => answer.modified_at.getTime())).size, 1)

    const counts = countsOf(new Map([...matrix].filter(([key]) => kept.has(key.split(':')[0]))))
    for (const [id, seen] of await questionsSeen(t, collection))
      assert.deepEqual(seen.slice(1, 4), counts.get(id) ?? [0, 0, 0], `comment ${id}`)
    assert.equal((await t.json(`/api/question_collections/${collection}/`)).desc, null)
  })
})

test('importing a conversation again is refused, naming its collection, and changes nothing', async () => {
  const before = await tableSizes()
  const again = await run('import-polis', SEATTLE)
  assert.equal(again.code, 2)
  assert.equal(
    again.stderr.trim(),
    `import-polis: the Pol.is conversation 2demo is already imported, as collection ${seattle} "$15/hour"; nothing was imported`,
  )
  // A copy elsewhere is the same conversation (summary.csv's url names it).
  const copy = await run('import-polis', exportDir('seattle-copy', { 'comments.csv': null, 'votes.csv': null, 'summary.csv': null }))
  assert.equal(copy.code, 2)
  assert.match(copy.stderr, /already imported, as collection \d+ "\$15\/hour"; nothing was imported/)
  // The account owning the imported collections must be the import's own.
  const owner = (email: string | null) =>
    query((db) => db.updateTable('users').set({ email }).where('username', '=', 'polis-import').execute())
  await owner('someone@example.org')
  const taken = await run('import-polis', exportDir('seattle-owned', { 'comments.csv': null, 'participants-votes.csv': null }))
  await owner(null)
  assert.equal(taken.code, 2)
  assert.match(taken.stderr, /^import-polis: the account polis-import, which owns imported collections, is someone's/)
  assert.deepEqual(await tableSizes(), before)
})

test('a bad file rejects the whole import with its name and line, exit status 2, and nothing changes', async () => {
  const before = await tableSizes()
  const seattleText = (file: string) => fs.readFileSync(path.join(SEATTLE, file), 'utf8')
  /** The file with line `line` (1-based) passed through `edit`. */
  const editLine = (file: string, line: number, edit: (text: string) => string) =>
    seattleText(file)
      .split('\n')
      .map((text, i) => (i === line - 1 ? edit(text) : text))
      .join('\n')
  const cell = (index: number, value: string) => (text: string) =>
    text
      .split(',')
      .map((field, i) => (i === index ? value : field))
      .join(',')
  const cases: [string, Record<string, string | null>, string][] = [
    [
      'bad-cell',
      { 'comments.csv': null, 'participants-votes.csv': editLine('participants-votes.csv', 4, cell(6, '2')) },
      'participants-votes.csv line 4: "2" under comment 0 is not a vote (1, -1, 0 or empty)',
    ],
    [
      'unknown-column',
      { 'comments.csv': null, 'participants-votes.csv': editLine('participants-votes.csv', 1, cell(59, '99')) },
      'participants-votes.csv line 1: column 60 is comment 99, which comments.csv does not have',
    ],
    [
      'unknown-comment',
      { 'comments.csv': null, 'votes.csv': `${seattleText('votes.csv')}1403054214196,Wed Jun 18 08:16:54 WIB 2014,99,0,1\n` },
      'votes.csv line 2997: comment-id 99 is not in comments.csv',
    ],
    [
      'bad-vote',
      { 'comments.csv': null, 'votes.csv': editLine('votes.csv', 10, cell(4, 'yes')) },
      'votes.csv line 10: vote "yes" is not 1, -1 or 0',
    ],
    [
      'missing-column',
      { 'comments.csv': editLine('comments.csv', 1, (text) => text.replace('moderated', 'status')), 'votes.csv': null },
      'comments.csv line 1: the header has no moderated column',
    ],
    [
      'short-line',
      { 'comments.csv': editLine('comments.csv', 2, (text) => text.replace(/,[^,]*$/, '')), 'votes.csv': null },
      'comments.csv line 2: 7 columns where the header has 8',
    ],
    [
      'open-quote',
      { 'comments.csv': `${seattleText('comments.csv')}1403054214196,x,99,1,0,0,1,"never closed\n`, 'votes.csv': null },
      'comments.csv line 71: a quoted field is never closed',
    ],
  ]
  for (const [name, files, message] of cases) {
    const result = await run('import-polis', exportDir(name, files))
    assert.equal(result.code, 2, `${name}: ${result.stderr}`)
    assert.equal(result.stderr.trim(), `import-polis: ${message}; nothing was imported`, name)
  }
  const noVotes = exportDir('no-votes', { 'comments.csv': null })
  assert.equal(
    (await run('import-polis', noVotes)).stderr.trim(),
    `import-polis: ${noVotes}: neither votes.csv nor participants-votes.csv; nothing was imported`,
  )
  const missing = await run('import-polis', path.join(exports, 'nowhere'))
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /nowhere: no such directory; nothing was imported/)
  assert.deepEqual(await tableSizes(), before)
})

test('comments moderated out and meta statements are kept unpublished, with their answers: shown to staff alone', async () => {
  const hidden = (await rows(path.join(SEATTLE, 'comments.csv')))
    .filter((row) => row.moderated === '-1')
    .map((row) => Number(row['comment-id']))
  await throughHttp(async (t) => {
    const ids = await t.database.db
      .selectFrom('question_collection_items as i')
      .innerJoin('questions as q', 'q.id', 'i.question_id')
      .select(['i.order', 'q.id', 'q.publish', 'q.question'])
      .where('i.parent_id', '=', seattle)
      .where('q.publish', '=', false)
      .orderBy('i.order')
      .execute()
    assert.deepEqual(
      ids.map((row) => [row.order, row.question]),
      hidden.sort((a, b) => a - b).map((id) => [id, `Pol.is comment ${id}, moderated out`]),
    )
    const staff = await insertUser(t.database.db, { is_staff: true })
    const staffToken = await t.tokenFor(staff.id)
    const someone = await insertUser(t.database.db)
    const token = await t.tokenFor(someone.id)
    for (const { id } of ids.slice(0, 3)) {
      assert.equal((await t.get(`/api/questions/${id}/`)).statusCode, 404)
      assert.equal((await t.get(`/api/questions/${id}/`, { authorization: `Token ${token}` })).statusCode, 404)
      assert.equal((await t.json(`/api/questions/${id}/`, { authorization: `Token ${staffToken}` })).publish, false)
    }
    // Never asked: every question the collection serves next is one of its published questions.
    const next = await t.json(`/api/next_question/?in_collections__parent=${seattle}&limit_count=100`, { authorization: `Token ${token}` })
    const served: { id: number }[] = Array.isArray(next) ? next : (next.results ?? [])
    assert.equal(served.length, 31)
    for (const question of served) assert.ok(!ids.some((row) => row.id === question.id), `asked ${question.id}`)
    assert.deepEqual(
      [(await t.json(`/api/question_collections/${seattle}/`)).question_count, (await storedAnswers(t, seattle)).size > 0],
      [31, true],
    )
  })
})

test('every layout of the open data: xid and other columns skipped and named, is-meta and --meta mark meta statements', async () => {
  const london = await run('import-polis', path.join(POLIS, 'london.youth.policing'))
  assert.equal(london.code, 0, london.stderr)
  assert.match(
    london.stderr,
    /^imported 36 comments as questions, 3 moderated out and 0 meta kept unpublished, 27 participants, 638 answers from participants-votes\.csv \(columns skipped: xid\) into collection \d+ "What is the best way/,
  )
  const bg2050 = await run('import-polis', path.join(POLIS, 'bg2050-volunteers'))
  assert.equal(bg2050.code, 0, bg2050.stderr)
  assert.match(
    bg2050.stderr,
    /^imported 20 comments as questions, 4 moderated out and 1 meta kept unpublished, .* \(columns skipped: xid\) into collection/,
  )
  const metaOf = (conversation: string) =>
    query(async (db) =>
      (
        await db
          .selectFrom('questions as q')
          .innerJoin('users as u', 'u.id', 'q.user_id')
          .innerJoin('question_collection_items as i', 'i.question_id', 'q.id')
          .select(['i.order', 'q.question'])
          .where('u.username', 'like', `polis-${conversation}-%`)
          .where('q.publish', '=', false)
          .where('q.question', 'not like', 'Pol.is comment %')
          .orderBy('i.order')
          .execute()
      ).map((row) => row.order),
    )
  assert.deepEqual(await metaOf('3nemnipcrc'), [12])

  // Meta statements the export does not mark, named by --meta; any other column that is not a number is skipped.
  const ubi = path.join(POLIS, 'scoop-hivemind.ubi')
  const matrix = fs.readFileSync(path.join(ubi, 'participants-votes.csv'), 'utf8').split('\n')
  const noted = [
    matrix[0].replace('participant,', 'participant,note,'),
    ...matrix.slice(1).map((line) => (line === '' ? line : line.replace(/^(\d+),/, '$1,x,'))),
  ]
  const dir = exportDir('ubi-meta', {
    'comments.csv': fs.readFileSync(path.join(ubi, 'comments.csv'), 'utf8'),
    'participants-votes.csv': noted.join('\n'),
  })
  const meta = '32,33,34,35,36,37,38,39,40,41,42'
  const unknown = await run('import-polis', dir, '--meta', '32,999')
  assert.equal(unknown.code, 2)
  assert.equal(unknown.stderr.trim(), 'import-polis: --meta names comment 999, which comments.csv does not have; nothing was imported')
  assert.equal((await run('import-polis', dir, '--meta', '32,x')).code, 2)
  const marked = await run('import-polis', dir, '--meta', meta)
  assert.equal(marked.code, 0, marked.stderr)
  assert.match(
    marked.stderr,
    /^imported 59 comments as questions, 1 moderated out and 11 meta kept unpublished, 234 participants, 7,153 answers from participants-votes\.csv \(columns skipped: note\)/,
  )
  assert.deepEqual(await metaOf('ubi-meta'), meta.split(',').map(Number))
})

test('the other conversations import too, and every stored figure then equals a recomputation', async () => {
  for (const conversation of ['scoop-hivemind.ubi', 'football-concussions']) {
    const result = await run('import-polis', path.join(POLIS, conversation))
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stderr, /from participants-votes\.csv into collection/)
  }
  const check = await run('check')
  assert.equal(check.code, 0, check.stdout)
  assert.equal(check.stdout, '')
  assert.match(check.stderr, /every stored figure equals a recomputation/)
})
