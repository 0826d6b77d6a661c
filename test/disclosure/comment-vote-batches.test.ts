import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { applyMinCellSize, unreleasedProblems } from '../../src/disclosure/batches.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'

/**
 * The moment of a comment vote (docs/privacy.md, Batches; migration 042). Once a comment counts its private votes (its
 * first batch: k of them together), one more private vote, a change of direction, a withdrawal, or a private vote
 * made public changes nothing anyone else reads of the comment until k such changes have gathered; then they are
 * released together, the k-th whole even when it is a change of direction (two writes). With MIN_CELL_SIZE 5.
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const NAMES = ['asker', 'writer', 'stranger', 'staff', 'v1', 'v2', 'v3', 'v4', 'v5', 'n1', 'n3', 'p1', 'p2', 'p3', 'p4', 'p5'] as const
/** Everyone who reads the comment without voting on it: staff through the public routes, the comment's author too. */
const OBSERVERS = ['anonymous', 'stranger', 'staff', 'writer'] as const
const ids = { question: 0, watched: 0, other: 0 }
/** Each voter's active vote on the watched comment. */
const votes: Record<string, number> = {}

const headers = (who: string): Record<string, string> => (who === 'anonymous' ? {} : { authorization: `Token ${people[who].token}` })
const send = async (who: string, method: 'POST' | 'DELETE', url: string, body?: unknown) => {
  const response = await t.send(method, url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
  return response.statusCode === 204 ? null : response.json()
}
/** A vote on the watched comment; its answer's tallies (what the voter reads) are returned. */
async function vote(who: string, value: 1 | 5, isPrivate: boolean, comment = ids.watched): Promise<[number, number]> {
  const cast = await send(who, 'POST', '/api/comment_votes/', { object_id: comment, value, private: isPrivate })
  if (comment === ids.watched) votes[who] = cast.id
  return [cast.direct_maximum, cast.direct_minimum]
}
const withdraw = (who: string) => send(who, 'DELETE', `/api/comment_votes/${votes[who]}/`)

async function body(who: string, url: string): Promise<string> {
  const response = await t.get(url, headers(who))
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`)
  return response.body
}

const ORDERINGS = ['-direct_maximum,id', '-direct_maximum,-id', '-direct_minimum,id', '-direct_minimum,-id', 'direct_maximum,id']

/** What `who` reads of the comments' tallies, byte for byte: detail, listing, orderings by them, the service's totals. */
async function observe(who: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {
    detail: await body(who, `/api/comments/${ids.watched}/`),
    listing: await body(who, `/api/comments/?question=${ids.question}`),
  }
  for (const ordering of ORDERINGS)
    out[`ordering ${ordering}`] = await body(who, `/api/comments/?question=${ids.question}&ordering=${ordering}`)
  const { generated_at: _at, ...totals } = JSON.parse(await body(who, '/api/general_stats/'))
  out.totals = JSON.stringify(totals)
  return out
}
const everyone = async () => new Map(await Promise.all(OBSERVERS.map(async (who) => [who, await observe(who)] as const)))

function assertUnchanged(now: Map<string, Record<string, string>>, before: Map<string, Record<string, string>>, label: string) {
  for (const who of OBSERVERS)
    for (const [place, text] of Object.entries(now.get(who)!))
      assert.equal(text, before.get(who)![place], `${label}: ${who} reads ${place}`)
}

const tallies = async (who: string) => {
  const row = JSON.parse(await body(who, `/api/comments/${ids.watched}/`))
  return [row.direct_maximum, row.direct_minimum]
}
const order = async (who: string, ordering: string) =>
  JSON.parse(await body(who, `/api/comments/?question=${ids.question}&ordering=${ordering}`)).results.map((row: { id: number }) => row.id)
const commentVoteCount = async (who: string) => JSON.parse(await body(who, '/api/general_stats/')).comment_vote_count as number

async function assertCheckClean(label: string) {
  assert.deepEqual(await unreleasedProblems(t.database.db), [], `${label}: civic-survey check reports unreleased changes`)
  assert.deepEqual(await storedFigureDifferences(t.database.db), [], `${label}: civic-survey check reports differences`)
}

before(async () => {
  t = await createTestApp('empty')
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, { username: `cvb_${name}`, is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  ids.question = (await send('asker', 'POST', '/api/questions/', { question: 'Should the lighthouse be reopened?' })).id
  ids.watched = (await send('writer', 'POST', '/api/comments/', { question: ids.question, text: 'Ships still need it.' })).id
  ids.other = (await send('writer', 'POST', '/api/comments/', { question: ids.question, text: 'GPS made it useless.' })).id
  // The other comment holds what the watched one holds after its first batch, three up and two down, in public:
  // each ordering ties them, so a tally of the watched one moving by one in either direction changes an order.
  for (const name of ['p1', 'p2', 'p3']) await vote(name, 5, false, ids.other)
  for (const name of ['p4', 'p5']) await vote(name, 1, false, ids.other)
})
after(() => t.close())

describe("a comment's private votes reach its tallies in batches of k", () => {
  let released: Map<string, Record<string, string>>

  test('the first batch: four private votes show nothing, the fifth releases all five at once', async () => {
    const before = await everyone()
    assert.deepEqual(await tallies('anonymous'), [0, 0])
    const count = await commentVoteCount('anonymous')
    for (const [name, value] of [
      ['v1', 5],
      ['v2', 5],
      ['v3', 5],
      ['v4', 1],
    ] as const) {
      assert.deepEqual(await vote(name, value, true), [0, 0], `${name} reads the tallies everyone reads`)
      assertUnchanged(await everyone(), before, `private vote of ${name}`)
      await assertCheckClean(`after the private vote of ${name}`)
    }
    assert.deepEqual(await vote('v5', 1, true), [3, 2], 'the fifth voter reads the batch released')
    for (const who of OBSERVERS) {
      assert.deepEqual(await tallies(who), [3, 2], `${who} reads the five private votes`)
      assert.deepEqual(await order(who, '-direct_maximum,-id'), [ids.other, ids.watched], `${who}: tied, the order follows the ids`)
      assert.equal(await commentVoteCount(who), count + 5, `${who}: the service's total counts them together`)
    }
    await assertCheckClean('after the first batch')
    released = await everyone()
  })

  test('then a new private vote, a change of direction, a withdrawal and a vote made public change nothing others read', async () => {
    const changes: [string, () => Promise<unknown>][] = [
      ['a new private up vote', () => vote('n1', 5, true)],
      ['a released private up vote turned down', () => vote('v3', 1, true)],
      ['a released private vote withdrawn', () => withdraw('v4')],
      ['a released private vote made public', () => vote('v2', 5, false)],
    ]
    for (const [label, change] of changes) {
      const answer = await change()
      if (Array.isArray(answer)) assert.deepEqual(answer, [3, 2], `${label}: the voter reads the tallies everyone reads`)
      assertUnchanged(await everyone(), released, label)
      await assertCheckClean(`after ${label}`)
    }
    // The public vote is listed at once (its vote is public); the tallies still count the private one it replaced.
    const listed = JSON.parse(await body('anonymous', `/api/comment_votes/?object_id=${ids.watched}&active=true`)).results
    assert.deepEqual(
      listed.map((v: { user: { id: number }; value: number }) => [v.user.id, v.value]),
      [[people.v2.id, 5]],
    )
  })

  test('the fifth change, a change of direction, releases the five together and whole', async () => {
    const count = await commentVoteCount('anonymous')
    // v1 turns from up to down: two writes (the up vote superseded, then the down vote), one change.
    assert.deepEqual(await vote('v1', 1, true), [2, 3], 'the voter reads the batch released, their own change whole')
    // Up: v2 (now public) and n1. Down: v1, v3 and v5. v4 withdrew.
    for (const who of OBSERVERS) {
      assert.deepEqual(await tallies(who), [2, 3], `${who} reads the batch`)
      assert.deepEqual(await order(who, '-direct_minimum,-id'), [ids.watched, ids.other], `${who}: the order follows the tallies`)
      assert.deepEqual(await order(who, 'direct_maximum,id'), [ids.watched, ids.other])
      assert.equal(await commentVoteCount(who), count, `${who}: one new vote and one withdrawn, together`)
    }
    await assertCheckClean('after the second batch')
    released = await everyone()
  })

  test('a change undone before its batch leaves nothing waiting; a new vote made public before its batch shows at once', async () => {
    await vote('v3', 5, true)
    assertUnchanged(await everyone(), released, 'v3 turns up')
    await vote('v3', 1, true)
    assertUnchanged(await everyone(), released, 'and down again')
    await assertCheckClean('after a change undone')
    const { rows } = await sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM unreleased_comment_votes WHERE comment_id = ${ids.watched}`.execute(t.database.db)
    assert.equal(rows[0].n, 0, 'nothing waits on the comment')

    await vote('n3', 1, true)
    assertUnchanged(await everyone(), released, 'a new private vote')
    assert.deepEqual(await vote('n3', 1, false), [2, 4], 'never published as private, it shows as public at once')
    for (const who of OBSERVERS) assert.deepEqual(await tallies(who), [2, 4])
    await assertCheckClean('after a vote made public before its batch')
  })

  test('removing a comment takes its waiting changes with it', async () => {
    const doomed = (await send('writer', 'POST', '/api/comments/', { question: ids.question, text: 'Make it a museum.' })).id
    await vote('v1', 5, true, doomed)
    await vote('v2', 1, true, doomed)
    await send('writer', 'DELETE', `/api/comments/${doomed}/`)
    await assertCheckClean('after removing a comment with waiting changes')
  })
})

describe('civic-survey check follows the waiting comment votes', () => {
  test('a stray row, or a comment holding k, is reported', async () => {
    const db = t.database.db
    const comment = (await send('writer', 'POST', '/api/comments/', { question: ids.question, text: 'Paint it red.' })).id
    await vote('p1', 5, false, comment)
    await sql`INSERT INTO unreleased_comment_votes (comment_id, user_id) VALUES (${comment}, ${people.p1.id})`.execute(db)
    assert.deepEqual(await unreleasedProblems(db), [
      { question: ids.question, user: people.p1.id, what: `comment ${comment}: no private vote to release` },
    ])
    await sql`DELETE FROM unreleased_comment_votes WHERE comment_id = ${comment}`.execute(db)

    await sql`ALTER TABLE unreleased_comment_votes DISABLE TRIGGER unreleased_comment_votes_batch`.execute(db)
    try {
      for (const name of ['v1', 'v2', 'v3', 'v4', 'v5']) await vote(name, 1, true, comment)
    } finally {
      await sql`ALTER TABLE unreleased_comment_votes ENABLE TRIGGER unreleased_comment_votes_batch`.execute(db)
    }
    assert.deepEqual(await unreleasedProblems(db), [
      { question: ids.question, user: null, what: `comment ${comment}: 5 unreleased changes, k = 5` },
    ])
    await sql`DELETE FROM unreleased_comment_votes WHERE comment_id = ${comment}`.execute(db)
    await assertCheckClean('once released by hand')
  })

  test('lowering k releases the comments it reaches', async () => {
    const comment = (await send('writer', 'POST', '/api/comments/', { question: ids.question, text: 'Sell it.' })).id
    await vote('v1', 5, true, comment)
    await vote('v2', 5, true, comment)
    const read = async () => JSON.parse(await body('anonymous', `/api/comments/${comment}/`)).direct_maximum
    assert.equal(await read(), 0)
    try {
      await applyMinCellSize(t.database.db, 2)
      assert.equal(await read(), 2)
    } finally {
      await applyMinCellSize(t.database.db, 5)
    }
    await assertCheckClean('after k went down and up again')
  })
})
