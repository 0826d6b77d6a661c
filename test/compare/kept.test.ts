import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

/**
 * A rates six questions 3. B: 3,3,3,3,4,5 -> d = [4,1,1,0,0], 6 questions, 100·3/24 = 12.5.
 * C: 1,1 on the first two -> d = [0,0,2,0,0], 2 questions, 50 (quick: null). D answered nothing.
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const auth = (name: string) => ({ authorization: `Token ${people[name].token}` })
const id = (name: string) => people[name].id

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['a', 'b', 'c', 'd', 'author']) {
    const row = await insertUser(db, { username: `kept_${name}` })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const questions: number[] = []
  for (let i = 0; i < 6; i++) questions.push((await insertQuestion(db, id('author'))).id)
  const rate = (who: string, values: number[]) =>
    db
      .insertInto('question_votes')
      .values(values.map((value, i) => ({ user_id: id(who), question_id: questions[i], value })))
      .execute()
  await rate('a', [3, 3, 3, 3, 3, 3])
  await rate('b', [3, 3, 3, 3, 4, 5])
  await rate('c', [1, 1])
  const tag = await insertTag(db)
  await db
    .insertInto('friendships')
    .values([
      { user_id: id('c'), friend_id: id('a'), accepted_at: new Date() },
      { user_id: id('a'), friend_id: id('d'), accepted_at: null },
    ])
    .execute()
  await db
    .insertInto('tag_delegations')
    .values({ user_id: id('a'), tag_id: tag.id, trustee_id: id('b') })
    .execute()
  await db
    .insertInto('question_delegations')
    .values([
      { user_id: id('a'), question_id: questions[0], trustee_id: id('c') },
      { user_id: id('a'), question_id: questions[1], trustee_id: id('d'), revoked_at: new Date() },
    ])
    .execute()
})
after(() => t.close())

const kept = async () => t.database.db.selectFrom('user_compares').select(['user_id', 'other_id']).execute()
const latestOf = async (name: string, headers: Record<string, string> = {}) =>
  (await t.json(`/api/users/${id(name)}/`, headers)).latest_compare as { user: number }[]

describe('kept comparisons and latest_compare', () => {
  test('nothing is kept unless the signed-in caller is usera', async () => {
    await t.json(`/api/compare_users/?usera=${id('a')}&userb=${id('b')}`)
    await t.json(`/api/compare_n_users_quick/?usera=${id('a')}&users=${id('b')}`, auth('b'))
    await t.json(`/api/compare_users_quick/?usera=${id('a')}&userb=${id('c')}`, auth('c'))
    assert.deepEqual(await kept(), [])
    assert.deepEqual(await latestOf('a', auth('a')), [])
  })

  test("the caller's comparisons are kept; latest_compare shows them, newest first, to that user only", async () => {
    await t.json(`/api/compare_n_users_quick/?usera=${id('a')}&users=${id('b')},${id('c')},${id('d')}`, auth('a'))
    const latest = await latestOf('a', auth('a'))
    assert.deepEqual(
      latest.map((entry) => entry.user),
      [id('d'), id('c'), id('b')],
      'made together: the latest kept first',
    )
    const b = latest.find((entry) => entry.user === id('b')) as Record<string, unknown>
    assert.deepEqual(Object.keys(b).sort(), ['difference_distances', 'difference_percent', 'modified_at', 'questions_counted', 'user'])
    assert.deepEqual([b.difference_percent, b.questions_counted, b.difference_distances], [12.5, 6, [4, 1, 1, 0, 0]])
    assert.match(String(b.modified_at), TIMESTAMP)
    const c = latest.find((entry) => entry.user === id('c'))!
    assert.deepEqual(c, { ...c, difference_percent: 50, questions_counted: 2 }, 'kept with the full percent, however few the questions')
    await new Promise((resolve) => setTimeout(resolve, 5))
    await t.json(`/api/compare_users/?usera=${id('a')}&userb=${id('c')}`, auth('a'))
    assert.deepEqual(
      (await latestOf('a', auth('a'))).map((entry) => entry.user),
      [id('c'), id('d'), id('b')],
      'comparing again moves the pair to the front; still one row per pair',
    )
    assert.equal((await kept()).length, 3)
    assert.deepEqual(await latestOf('a'), [], 'anonymous')
    assert.deepEqual(await latestOf('a', auth('b')), [], 'someone else')
    const listed = await t.json(`/api/users/?id__in=${id('a')},${id('b')}`, auth('a'))
    const rows = new Map(listed.results.map((user: { id: number; latest_compare: unknown[] }) => [user.id, user.latest_compare.length]))
    assert.deepEqual([rows.get(id('a')), rows.get(id('b'))], [3, 0])
  })

  test('the users listing stays a small constant number of statements with latest_compare', async () => {
    const counts: number[] = []
    for (const size of [1, 20]) {
      const response = await t.get(`/api/users/?page_size=${size}&id__in=${id('a')},${id('b')},${id('c')},${id('d')}`, auth('a'))
      counts.push(Number(response.headers['x-query-count']))
    }
    assert.equal(counts[0], counts[1], counts.join(', '))
  })
})

describe('users ?compare_check', () => {
  const check = async (value: string, headers: Record<string, string> = auth('a')) =>
    (await t.json(`/api/users/?compare_check=${value}`, headers)).results.map((user: { id: number }) => user.id)

  test('the people the caller compared with, with at least that many questions, ordered by the field', async () => {
    assert.deepEqual(await check(`${id('a')},1,compares__difference_percent`), [id('b'), id('c')])
    assert.deepEqual(await check(`${id('a')},1,-compares__difference_percent`), [id('c'), id('b')])
    assert.deepEqual(await check(`${id('a')},5,compares__difference_percent`), [id('b')])
    assert.deepEqual(await check(`${id('a')},0,compares__difference_percent`), [id('b'), id('c'), id('d')], 'no figure: last')
    assert.deepEqual(await check(`${id('a')},0,-compares__difference_percent`), [id('c'), id('b'), id('d')], 'no figure: last')
    assert.deepEqual(await check(`${id('a')},0,compares__questions_counted`), [id('d'), id('c'), id('b')])
    assert.deepEqual(await check(`${id('a')},1`), [id('b'), id('c')], 'by difference when no field is named')
    const page = await t.json(`/api/users/?compare_check=${id('a')},1,compares__difference_percent&page_size=1`, auth('a'))
    assert.equal(page.count, 2)
  })

  test("someone else's comparisons are theirs: an empty page", async () => {
    assert.deepEqual(await check(`${id('a')},0,compares__difference_percent`, auth('b')), [])
    assert.deepEqual(await check(`${id('a')},0,compares__difference_percent`, {}), [])
  })

  test('malformed: 400 naming compare_check', async () => {
    for (const value of [
      'x',
      `${id('a')}`,
      `${id('a')},x,compares__difference_percent`,
      `${id('a')},5,username`,
      `${id('a')},-1`,
      '1,2,3,4',
    ]) {
      const response = await t.get(`/api/users/?compare_check=${encodeURIComponent(value)}`, auth('a'))
      assert.equal(response.statusCode, 400, value)
      assert.deepEqual(Object.keys(response.json()), ['compare_check'], value)
    }
  })
})

describe('user_compare', () => {
  test("the caller's kept comparisons, paginated, newest first; filter by other", async () => {
    const page = await t.json('/api/user_compare/', auth('a'))
    assert.equal(page.count, 3)
    assert.deepEqual(
      page.results.map((row: { other: number }) => row.other),
      [id('c'), id('d'), id('b')],
    )
    const [b] = (await t.json(`/api/user_compare/?other=${id('b')}`, auth('a'))).results
    assert.deepEqual(Object.keys(b).sort(), [
      'created_at',
      'difference_distances',
      'difference_percent',
      'id',
      'modified_at',
      'other',
      'questions_counted',
      'user',
    ])
    assert.deepEqual([b.user, b.other, b.difference_percent, b.difference_distances], [id('a'), id('b'), 12.5, [4, 1, 1, 0, 0]])
    assert.equal((await t.json('/api/user_compare/?ordering=questions_counted', auth('a'))).results[0].other, id('d'))
    assert.equal((await t.json('/api/user_compare/', auth('b'))).count, 0)
    assert.equal((await t.get('/api/user_compare/')).statusCode, 403)
  })
})

describe('users_fd_compare', () => {
  test('the caller against accepted friends (either way) and trustees of live delegations', async () => {
    assert.deepEqual(await t.json('/api/users_fd_compare/', auth('a')), {
      results: {
        [id('b')]: { difference_percent: 12.5, questions_counted: 6, difference_distances: [4, 1, 1, 0, 0], relation: ['delegate'] },
        [id('c')]: {
          difference_percent: null,
          questions_counted: 2,
          difference_distances: [0, 0, 2, 0, 0],
          relation: ['friend', 'delegate'],
        },
      },
    })
    assert.deepEqual(await t.json('/api/users_fd_compare/', auth('d')), { results: {} })
    assert.equal((await t.get('/api/users_fd_compare/')).statusCode, 403)
  })
})
