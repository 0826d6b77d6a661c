import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertStoredEqualsRecomputed, likertQuestion, mcqQuestion } from './support.ts'

let t: TestApp
const ids: Record<string, number> = {}
const tokens: Record<string, string> = {}
let choiceIds: number[] = []
const slugs: Record<string, string> = {}
const texts: Record<string, string> = {}
/** The answers as the vote endpoints returned them, in the order they were given. */
const given: Record<string, { id: number; modified_at: string }> = {}

const auth = (token?: string): Record<string, string> => (token ? { authorization: `Token ${token}` } : {})
const history = (query = '', token = tokens.me) => t.json(`/api/question_history_simple/${query}`, auth(token))
const full = (query = '', token = tokens.me) => t.json(`/api/question_history/${query}`, auth(token))

async function answer(name: string, url: string, body: unknown, token = tokens.me) {
  const response = await t.send('POST', url, body, token)
  assert.ok(response.statusCode === 201 || response.statusCode === 200, response.body)
  given[name] = response.json()
}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  const people = {
    me: await insertUser(db),
    other: await insertUser(db),
    staff: await insertUser(db, { is_staff: true }),
    fresh: await insertUser(db),
  }
  for (const [name, user] of Object.entries(people)) {
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  const first = await likertQuestion(db, people.other.id)
  const second = await likertQuestion(db, people.other.id)
  const mcq = await mcqQuestion(db, people.other.id, 3)
  Object.assign(ids, { first: first.id, second: second.id, mcq: mcq.id })
  Object.assign(slugs, { first: first.slug, second: second.slug, mcq: mcq.slug })
  Object.assign(texts, { first: first.question, second: second.question, mcq: mcq.question })
  choiceIds = mcq.choiceIds

  // My answers, in this order:
  await answer('first4', '/api/question_votes/', { object_id: ids.first, value: 4, importance: 4, private: false })
  await answer('first2', '/api/question_votes/', { object_id: ids.first, value: 2 }) // replaces first4, keeps the importance
  await answer('pickA', '/api/question_choice_votes/', { object_id: choiceIds[0], value: 5 })
  await answer('pickB', '/api/question_choice_votes/', { object_id: choiceIds[1], value: 5 }) // replaces pickA
  await answer('secondSkip', '/api/question_votes/', { object_id: ids.second, value: null })
  await answer('second3', '/api/question_votes/', { object_id: ids.second, value: 3, private: true }) // replaces the skip
  const withdrawn = await t.send('DELETE', `/api/question_votes/${given.second3.id}/`, undefined, tokens.me)
  assert.equal(withdrawn.statusCode, 204)
  // Someone else's answers on the same questions, replaced too.
  await answer('other1', '/api/question_votes/', { object_id: ids.first, value: 1, private: false }, tokens.other)
  await answer('other5', '/api/question_votes/', { object_id: ids.first, value: 5, private: false }, tokens.other)
  await answer('otherPick', '/api/question_choice_votes/', { object_id: choiceIds[2], value: 5, private: false }, tokens.other)
})
after(() => t.close())

interface Entry {
  object_id: number
  choice: number | null
  value: number | null
  skipped: boolean
  private: boolean
  current: boolean
  vote: number | null
  answered_at: string
  replaced_at: string | null
}

/** My history as the calls above must have left it, newest answer first. */
function expectedHistory(): Entry[] {
  const entry = (
    question: number,
    choice: number | null,
    value: number | null,
    priv: boolean,
    answered: string,
    replaced: string | null,
    vote: number | null,
  ): Entry => ({
    object_id: question,
    choice,
    value,
    skipped: value === null,
    private: priv,
    current: replaced === null,
    vote,
    answered_at: answered,
    replaced_at: replaced,
  })
  // The withdrawal's time is not returned by DELETE: 'withdrawn' stands for any time after the answer.
  return [
    entry(ids.second, null, 3, true, given.second3.modified_at, 'withdrawn', null),
    entry(ids.second, null, null, false, given.secondSkip.modified_at, given.second3.modified_at, null),
    entry(ids.mcq, choiceIds[1], 5, false, given.pickB.modified_at, null, given.pickB.id),
    entry(ids.mcq, choiceIds[0], 5, false, given.pickA.modified_at, given.pickB.modified_at, null),
    entry(ids.first, null, 2, false, given.first2.modified_at, null, given.first2.id),
    entry(ids.first, null, 4, false, given.first4.modified_at, given.first2.modified_at, null),
  ]
}

/** Compares with the expected history; a withdrawn answer's replaced_at is any time after its answer. */
function assertEntries(actual: Entry[], expected: Entry[]) {
  assert.equal(actual.length, expected.length, JSON.stringify(actual))
  actual.forEach((entry, i) => {
    const want = expected[i]
    if (want.replaced_at === 'withdrawn') {
      assert.match(entry.replaced_at!, TIMESTAMP)
      assert.ok(entry.replaced_at! >= entry.answered_at, 'withdrawn after it was given')
      assert.deepEqual({ ...entry, replaced_at: 'withdrawn' }, { ...want, current: false }, `entry ${i}`)
    } else {
      assert.deepEqual(entry, want, `entry ${i}`)
    }
  })
}

describe('question_history_simple', () => {
  test('my answers, current and replaced or withdrawn, likert and choice, newest first', async () => {
    const page = await history()
    assert.equal(page.count, 6)
    for (const item of page.results) {
      assert.deepEqual(Object.keys(item).sort(), [
        'answered_at',
        'choice',
        'current',
        'object_id',
        'private',
        'replaced_at',
        'skipped',
        'value',
        'vote',
      ])
    }
    assertEntries(page.results, expectedHistory())
  })

  test('the current answer is the one the question shows as my_vote', async () => {
    const page = await history()
    const q = await t.json(`/api/questions/${ids.first}/`, auth(tokens.me))
    const current = page.results.filter((e: Entry) => e.object_id === ids.first && e.current)
    assert.equal(current.length, 1)
    assert.deepEqual(
      [current[0].vote, current[0].value, current[0].answered_at],
      [q.my_vote[0].id, q.my_vote[0].value, q.my_vote[0].modified_at],
    )
    const mcq = await t.json(`/api/questions/${ids.mcq}/`, auth(tokens.me))
    assert.equal(page.results.find((e: Entry) => e.object_id === ids.mcq && e.current).choice, mcq.my_vote[0].object_id)
    const second = await t.json(`/api/questions/${ids.second}/`, auth(tokens.me))
    assert.deepEqual(second.my_vote, [], 'a withdrawn answer is nobody’s current answer')
    assert.equal(page.results.filter((e: Entry) => e.object_id === ids.second && e.current).length, 0)
  })

  test('ordering: answered_at, question, replaced_at; unknown names fall back to newest first', async () => {
    const newestFirst = expectedHistory()
    assertEntries((await history('?ordering=answered_at')).results, [...newestFirst].reverse())
    assertEntries((await history('?ordering=-answered_at')).results, newestFirst)
    assertEntries((await history('?ordering=nonsense')).results, newestFirst)
    const byQuestion = (await history('?ordering=question,answered_at')).results.map((e: Entry) => e.object_id)
    assert.deepEqual(
      byQuestion,
      [...byQuestion].sort((a, b) => a - b),
    )
    assert.deepEqual(byQuestion.filter((id: number) => id === ids.first).length, 2)
    const byReplacement = (await history('?ordering=replaced_at')).results as Entry[]
    const replacedTimes = byReplacement.map((e) => e.replaced_at)
    assert.deepEqual(replacedTimes.slice(4), [null, null], 'current answers, never replaced, come last')
    const times = replacedTimes.slice(0, 4) as string[]
    assert.deepEqual(times, [...times].sort())
    assert.deepEqual(byReplacement[0].answered_at, given.first4.modified_at, 'the earliest replacement first')
  })

  test('the question filter, and pages', async () => {
    const mcq = await history(`?question=${ids.mcq}`)
    assert.deepEqual(
      mcq.results.map((e: Entry) => e.choice),
      [choiceIds[1], choiceIds[0]],
    )
    assert.equal((await history(`?question=${ids.second}`)).count, 2)
    assert.equal((await history('?question=987654')).count, 0)
    const bad = await t.get('/api/question_history_simple/?question=first', auth(tokens.me))
    assert.deepEqual([bad.statusCode, bad.json()], [400, { question: ['Enter a whole number.'] }])
    const first = await history('?page_size=4')
    assert.equal(first.count, 6)
    assert.equal(first.results.length, 4)
    assert.match(first.next, /page=2/)
    const second = await history('?page_size=4&page=2')
    assert.equal(second.results.length, 2)
    assert.equal(second.next, null)
    assertEntries([...first.results, ...second.results], expectedHistory())
  })

  test('others’ answers are never shown, not even public ones; a user parameter changes nothing', async () => {
    const theirs = await history('', tokens.other)
    assert.equal(theirs.count, 3, 'their two answers to the first question and their pick')
    assert.deepEqual(
      theirs.results.map((e: Entry) => [e.object_id, e.value, e.current]),
      [
        [ids.mcq, 5, true],
        [ids.first, 5, true],
        [ids.first, 1, false],
      ],
    )
    const mine = await history(`?user=${ids.other}`)
    assert.equal(mine.count, 6)
    assert.ok(mine.results.every((e: Entry) => e.vote === null || [given.first2.id, given.pickB.id].includes(e.vote)))
    assert.equal((await history(`?user=${ids.me}`, tokens.staff)).count, 0, 'staff see their own history, which is empty')
    assert.deepEqual(await history('', tokens.fresh), {
      count: 0,
      next: null,
      previous: null,
      next_id: null,
      previous_id: null,
      results: [],
    })
  })

  test('signed in only: 403 without credentials, 401 with a bad token', async () => {
    for (const url of ['/api/question_history_simple/', '/api/question_history/']) {
      const anonymous = await t.get(url)
      assert.equal(anonymous.statusCode, 403, url)
      assert.deepEqual(anonymous.json(), { detail: 'Authentication credentials were not provided.' })
      assert.equal((await t.get(url, auth('bad-token'))).statusCode, 401, url)
    }
  })
})

describe('question_history', () => {
  test('the same entries with the question, the chosen choice’s text and the importance', async () => {
    const page = await full()
    const simple = await history()
    assert.equal(page.count, 6)
    page.results.forEach((item: Record<string, any>, i: number) => {
      assert.deepEqual(Object.keys(item).sort(), [
        'answered_at',
        'choice',
        'choice_text',
        'current',
        'importance',
        'object_id',
        'private',
        'question',
        'replaced_at',
        'skipped',
        'value',
        'vote',
      ])
      const { question, choice_text, importance, ...core } = item
      assert.deepEqual(core, simple.results[i], 'the light form is the full one without the extra fields')
      const name = question.id === ids.first ? 'first' : question.id === ids.second ? 'second' : 'mcq'
      assert.deepEqual(question, {
        id: item.object_id,
        url: `http://localhost:80/api/questions/${item.object_id}/`,
        question: texts[name],
        slug: slugs[name],
        subtype: name === 'mcq' ? 'mcq' : 'likert',
      })
      if (name === 'mcq') {
        assert.match(choice_text, /^Option \d of /)
        assert.equal(choice_text, `Option ${choiceIds.indexOf(item.choice) + 1} of ${slugs.mcq}`)
        assert.equal(importance, null)
      } else {
        assert.equal(choice_text, null)
      }
      if (name === 'first') assert.equal(importance, 4, 'the importance given with the first answer, kept by the second')
    })
  })

  test('filters, ordering and pages as in the light form', async () => {
    const page = await full(`?question=${ids.first}&ordering=answered_at`)
    assert.deepEqual(
      page.results.map((e: Entry) => [e.value, e.current]),
      [
        [4, false],
        [2, true],
      ],
    )
    const paged = await full('?page_size=5&page=2')
    assert.equal(paged.results.length, 1)
    assert.deepEqual(paged.results[0].value, 4)
    assert.equal(paged.results[0].question.id, ids.first)
    await assertStoredEqualsRecomputed(t.database.db, 'after the history’s answers')
  })
})
