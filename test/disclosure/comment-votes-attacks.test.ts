import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'
import { unreleasedProblems } from '../../src/disclosure/batches.ts'

/**
 * Private comment votes, attacked as an observer would (anonymous, a stranger, a friend of the voter, staff through
 * the public routes, and the comment's author): a comment's tallies, listings ordered by them, the voter's
 * count_comment_votes, the service's totals, notifications and activity, read byte for byte before and after one
 * private vote. With MIN_CELL_SIZE 5 a comment counts its private votes only from the fifth on, all at once, and
 * every later change of one waits for a batch of five (test/disclosure/comment-vote-batches.test.ts).
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const NAMES = ['asker', 'writer', 'vera', 'stranger', 'friend', 'staff', 'p1', 'p2', 's1', 's2', 's3', 's4'] as const
const OBSERVERS = ['anonymous', 'stranger', 'friend', 'staff', 'writer'] as const
/** Who sees every comment vote counted in count_comment_votes: the voter and staff. */
const FULL_COUNTERS = new Set(['vera', 'staff'])
const ids = { question: 0, watched: 0, other: 0 }

const headers = (who: string): Record<string, string> => (who === 'anonymous' ? {} : { authorization: `Token ${people[who].token}` })
const send = async (who: string, method: 'POST' | 'DELETE', url: string, body?: unknown) => {
  const response = await t.send(method, url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
  return response.statusCode === 204 ? null : response.json()
}
const vote = (who: string, comment: number, value: 1 | 5, isPrivate: boolean) =>
  send(who, 'POST', '/api/comment_votes/', { object_id: comment, value, private: isPrivate })
const withdraw = (voteId: number, who = 'vera') => send(who, 'DELETE', `/api/comment_votes/${voteId}/`)

/** A response body as the client reads it, byte for byte; 200 expected. */
async function body(who: string, url: string): Promise<string> {
  const response = await t.get(url, headers(who))
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`)
  return response.body
}

const ORDERINGS = ['-direct_maximum,id', '-direct_minimum,id', 'direct_maximum,-id', 'direct_minimum,-id']

/** Everything `who` can read of the comments' votes and of the voter, as raw bodies. */
async function observe(who: string): Promise<Record<string, string>> {
  const vera = people.vera.id
  const out: Record<string, string> = {
    detail: await body(who, `/api/comments/${ids.watched}/`),
    listing: await body(who, `/api/comments/?question=${ids.question}`),
    profile: await body(who, `/api/users/${vera}/`),
    users: await body(who, `/api/users/?id=${vera}`),
    usersByCount: await body(who, `/api/users/?id__in=${vera},${people.p1.id}&ordering=-count_comment_votes,id`),
    politician: await body(who, `/api/user_politician/${vera}/`),
    notifications: who === 'anonymous' ? '' : await body(who, '/api/notifications/'),
    activity: who === 'anonymous' ? '' : await body(who, '/api/relevant_activity/'),
  }
  for (const ordering of ORDERINGS)
    out[`ordering ${ordering}`] = await body(who, `/api/comments/?question=${ids.question}&ordering=${ordering}`)
  // Staff list every comment vote (docs/votes.md); everyone else only public ones.
  if (who !== 'staff') out.votes = await body(who, `/api/comment_votes/?object_id=${ids.watched}`)
  const { generated_at: _at, ...totals } = JSON.parse(await body(who, '/api/general_stats/'))
  out.totals = JSON.stringify(totals)
  return out
}

async function everyone(): Promise<Map<string, Record<string, string>>> {
  return new Map(await Promise.all(OBSERVERS.map(async (who) => [who, await observe(who)] as const)))
}

/** The voter's count_comment_votes as `who` reads it on their profile. */
const counted = async (who: string) => JSON.parse(await body(who, `/api/users/${people.vera.id}/`)).count_comment_votes as number

/** Nothing moved for anyone, but the voter's count for staff, which counts every vote. */
function assertUnchanged(
  now: Map<string, Record<string, string>>,
  before: Map<string, Record<string, string>>,
  label: string,
  except: string[] = [],
) {
  for (const who of OBSERVERS) {
    for (const [place, text] of Object.entries(now.get(who)!)) {
      if (except.includes(place)) continue
      if (FULL_COUNTERS.has(who) && ['profile', 'users', 'politician', 'usersByCount'].includes(place)) continue
      assert.equal(text, before.get(who)![place], `${label}: ${who} reads ${place} unchanged`)
    }
  }
}

const tallies = async (who: string, comment = ids.watched) => {
  const row = JSON.parse(await body(who, `/api/comments/${comment}/`))
  return [row.direct_maximum, row.direct_minimum]
}
const order = async (who: string, ordering: string) =>
  JSON.parse(await body(who, `/api/comments/?question=${ids.question}&ordering=${ordering}`)).results.map((row: { id: number }) => row.id)

async function assertCheckClean(label: string) {
  assert.deepEqual(await storedFigureDifferences(t.database.db), [], `${label}: civic-survey check reports differences`)
  assert.deepEqual(await unreleasedProblems(t.database.db), [], `${label}: civic-survey check reports unreleased changes`)
}

before(async () => {
  t = await createTestApp('empty')
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, { username: `cv_${name}`, is_staff: name === 'staff' })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  const friendship = await send('friend', 'POST', '/api/friends/', { friend: people.vera.id })
  await send('vera', 'POST', `/api/friends/${friendship.id}/accept/`)
  // The friend follows the voter and the writer, so their activity would show what those two do.
  for (const followed of ['vera', 'writer']) await send('friend', 'POST', '/api/following_users/', { following: people[followed].id })
  ids.question = (await send('asker', 'POST', '/api/questions/', { question: 'Should the ferry run at night?' })).id
  // The watched comment comes first: counted with a private vote it would tie with the other and win on id.
  ids.watched = (await send('writer', 'POST', '/api/comments/', { question: ids.question, text: 'Night workers need it.' })).id
  ids.other = (await send('writer', 'POST', '/api/comments/', { question: ids.question, text: 'It is too expensive.' })).id
  await vote('p1', ids.other, 5, false)
  await vote('p2', ids.other, 1, false)
  await vote('vera', ids.other, 5, false)
  await vote('p1', ids.watched, 5, false)
})
after(() => t.close())

describe('one private comment vote shows nothing to others', () => {
  test('a private up vote, changed to down, then withdrawn', async () => {
    const before = await everyone()
    const countBefore = { vera: await counted('vera'), staff: await counted('staff'), anonymous: await counted('anonymous') }
    assert.deepEqual(await tallies('anonymous'), [1, 0])
    assert.deepEqual(await order('anonymous', '-direct_maximum,id'), [ids.other, ids.watched], 'the other has two up votes')

    const up = await vote('vera', ids.watched, 5, true)
    assert.deepEqual([up.direct_maximum, up.direct_minimum], [1, 0], 'the voter reads the tallies everyone reads')
    let now = await everyone()
    assertUnchanged(now, before, 'private up')
    assert.equal(await counted('vera'), countBefore.vera + 1, 'the voter counts their own vote')
    assert.equal(await counted('staff'), countBefore.staff + 1, 'staff count every vote')
    assert.equal(await counted('anonymous'), countBefore.anonymous)
    await assertCheckClean('after a private up vote')

    const down = await vote('vera', ids.watched, 1, true)
    assert.deepEqual([down.direct_maximum, down.direct_minimum], [1, 0])
    now = await everyone()
    assertUnchanged(now, before, 'private down')
    assert.equal(await counted('vera'), countBefore.vera + 1, 'a changed vote is still one vote')
    await assertCheckClean('after a private down vote')

    await withdraw(down.id)
    now = await everyone()
    assertUnchanged(now, before, 'withdrawn')
    assert.equal(await counted('vera'), countBefore.vera)
    await assertCheckClean('after withdrawing')
  })

  test('a private down vote cast first', async () => {
    const before = await everyone()
    const down = await vote('vera', ids.watched, 1, true)
    assertUnchanged(await everyone(), before, 'private down')
    await withdraw(down.id)
    assertUnchanged(await everyone(), before, 'withdrawn')
  })

  test('the voter sees their own vote; the comment and its author do not show it', async () => {
    const mine = await vote('vera', ids.watched, 1, true)
    const detail = JSON.parse(await body('vera', `/api/comments/${ids.watched}/`))
    assert.deepEqual(
      detail.my_vote.map((v: any) => [v.id, v.value, v.private, v.active]),
      [[mine.id, 1, true, true]],
    )
    const listed = JSON.parse(await body('vera', `/api/comment_votes/?object_id=${ids.watched}&user=${people.vera.id}&active=true`)).results
    assert.deepEqual(
      listed.map((v: any) => [v.id, v.value, v.private]),
      [[mine.id, 1, true]],
    )
    assert.equal((await t.get(`/api/comment_votes/${mine.id}/`, headers('writer'))).statusCode, 404, 'not to the comment’s author')
    assert.deepEqual(await tallies('vera'), [1, 0], 'the tallies are everyone’s')
    assert.deepEqual(JSON.parse(await body('writer', `/api/comments/${ids.watched}/`)).my_vote, [])
    await withdraw(mine.id)
  })

  test('going public shows the vote to everyone; going private again takes it back', async () => {
    const before = await everyone()
    const countBefore = await counted('anonymous')
    const open = await vote('vera', ids.watched, 5, false)
    assert.deepEqual([open.direct_maximum, open.direct_minimum], [2, 0])
    for (const who of OBSERVERS) {
      assert.deepEqual(await tallies(who), [2, 0])
      assert.equal(await counted(who), countBefore + 1, `${who} sees the public vote counted`)
    }
    await assertCheckClean('after going public')
    const hidden = await vote('vera', ids.watched, 5, true)
    // The public vote stays listed as superseded, as a withdrawn one would (spec 2.10); nothing else is left of it.
    assertUnchanged(await everyone(), before, 'private again', ['votes'])
    for (const who of ['anonymous', 'stranger', 'friend', 'writer']) {
      const listed = JSON.parse(await body(who, `/api/comment_votes/?object_id=${ids.watched}&user=${people.vera.id}`)).results
      assert.deepEqual(
        listed.map((v: any) => [v.id, v.private, v.active]),
        [[open.id, false, false]],
      )
    }
    await assertCheckClean('after going private again')
    await withdraw(hidden.id)
  })
})

describe('from the k-th private vote, all of them count at once', () => {
  test('four private votes show nothing; the fifth shows all five; withdrawals wait for a batch of five', async () => {
    const before = await everyone()
    const cast: [string, number][] = [['vera', (await vote('vera', ids.watched, 5, true)).id]]
    for (const name of ['s1', 's2', 's3']) cast.push([name, (await vote(name, ids.watched, 5, true)).id])
    assertUnchanged(await everyone(), before, 'four private votes')
    const totals = JSON.parse(before.get('anonymous')!.totals)

    const fifth = await vote('s4', ids.watched, 1, true)
    assert.deepEqual([fifth.direct_maximum, fifth.direct_minimum], [1 + 4, 1], 'the fifth voter reads every vote')
    for (const who of OBSERVERS) {
      assert.deepEqual(await tallies(who), [5, 1], `${who} reads the private votes counted`)
      assert.deepEqual(await order(who, '-direct_maximum,id'), [ids.watched, ids.other], `${who}: the order follows the tallies`)
      assert.deepEqual(await order(who, '-direct_minimum,id'), [ids.watched, ids.other])
      const { generated_at: _at, ...now } = JSON.parse(await body(who, '/api/general_stats/'))
      assert.equal(now.comment_vote_count, totals.comment_vote_count + 5, `${who}: the service's total counts them too`)
    }
    assert.equal(await counted('anonymous'), JSON.parse(before.get('anonymous')!.profile).count_comment_votes, 'not on the profile')
    await assertCheckClean('with five private votes')

    const released = await everyone()
    await withdraw(fifth.id, 's4')
    assertUnchanged(await everyone(), released, 'one withdrawn: it waits for its batch')
    const [[veraName, veraVote], ...others] = cast
    for (const [name, id] of others) await withdraw(id, name)
    assertUnchanged(await everyone(), released, 'four withdrawn')
    await withdraw(veraVote, veraName)
    assertUnchanged(await everyone(), before, 'the fifth withdrawal releases them: none left')
    await assertCheckClean('after withdrawing them all')
  })

  test('a removed comment takes its private votes off every count', async () => {
    const doomed = (await send('writer', 'POST', '/api/comments/', { question: ids.question, text: 'Ask the harbour.' })).id
    const before = { vera: await counted('vera'), anonymous: await counted('anonymous') }
    await vote('vera', doomed, 5, true)
    await vote('p2', doomed, 5, false)
    await send('writer', 'DELETE', `/api/comments/${doomed}/`)
    assert.deepEqual({ vera: await counted('vera'), anonymous: await counted('anonymous') }, before)
    await assertCheckClean('after removing a comment')
  })

  test('so does a removed question', async () => {
    const question = (await send('asker', 'POST', '/api/questions/', { question: 'Should the quay be widened?' })).id
    const comment = (await send('writer', 'POST', '/api/comments/', { question, text: 'Only the north side.' })).id
    const before = { vera: await counted('vera'), anonymous: await counted('anonymous') }
    await vote('vera', comment, 1, true)
    await vote('p2', comment, 5, false)
    await send('asker', 'DELETE', `/api/questions/${question}/`)
    assert.deepEqual({ vera: await counted('vera'), anonymous: await counted('anonymous') }, before)
    await assertCheckClean('after removing a question')
  })
})

describe('listings', () => {
  test('ordered by a tally: a constant number of statements whatever the page size', async () => {
    for (const ordering of ORDERINGS) {
      const one = await t.get(`/api/comments/?question=${ids.question}&ordering=${ordering}&page_size=1`)
      const two = await t.get(`/api/comments/?question=${ids.question}&ordering=${ordering}&page_size=2`)
      assert.equal(JSON.parse(two.body).results.length, 2)
      assert.equal(one.headers['x-query-count'], two.headers['x-query-count'], ordering)
    }
  })
})
