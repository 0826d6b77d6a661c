import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

/** question_stats, general_stats, advanced_stats and user_count against data made for each figure. */
let t: TestApp
const ids: Record<string, number> = {}
const tokens: Record<string, string> = {}

before(async () => {
  t = await createTestApp('empty')
  const db = t.database.db
  for (const name of ['author', 'ann', 'bob', 'cat', 'staff']) {
    const user = await insertUser(db, { is_staff: name === 'staff' })
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  ids.tag = (await insertTag(db, 'Rivers')).id
})
after(() => t.close())

const vote = async (questionId: number, value: number | null, who: string, extra: Record<string, unknown> = {}) => {
  const response = await t.send('POST', '/api/question_votes/', { object_id: questionId, value, ...extra }, tokens[who])
  assert.ok(response.statusCode === 201 || response.statusCode === 200, response.body)
}

const ask = async (body: Record<string, unknown>) => {
  const response = await t.send('POST', '/api/questions/', body, tokens.author)
  assert.equal(response.statusCode, 201, response.body)
  return response.json()
}

describe('user_count and general_stats', () => {
  test('user_count counts active accounts only', async () => {
    const before = (await t.json('/api/user_count/')).result
    const db = t.database.db
    await insertUser(db)
    await insertUser(db, { is_active: false })
    await insertUser(db, { is_deleted: true })
    assert.deepEqual(await t.json('/api/user_count/'), { result: before + 1 })
  })

  test('general_stats moves with every answer, comment and vote, and only with those that count', async () => {
    const before = await t.json('/api/general_stats/')
    assert.match(before.generated_at, TIMESTAMP)
    const likert = await ask({ question: 'Should rivers have legal rights?', tags: [{ tag: { id: ids.tag } }] })
    const mcq = await ask({ question: 'Which river should be cleaned first?', choices: [{ text: 'Thames' }, { text: 'Severn' }] })
    await ask({ question: 'A draft nobody sees', publish: false })
    await vote(likert.id, 4, 'ann')
    await vote(likert.id, null, 'bob')
    await vote(likert.id, 2, 'ann') // replaces: still one answer
    const choice = await t.send('POST', '/api/question_choice_votes/', { object_id: mcq.choices[0].id, value: 5 }, tokens.cat)
    assert.equal(choice.statusCode, 201, choice.body)
    const comment = await t.send('POST', '/api/comments/', { question: likert.id, text: 'Rivers are commons.' }, tokens.ann)
    const hidden = await t.send('POST', '/api/comments/', { question: likert.id, text: 'Spam spam spam.' }, tokens.bob)
    assert.equal((await t.send('POST', `/api/comments/${hidden.json().id}/hide/`, {}, tokens.staff)).statusCode, 200)
    assert.equal((await t.send('POST', '/api/comment_votes/', { object_id: comment.json().id, value: 5 }, tokens.cat)).statusCode, 201)

    const after = await t.json('/api/general_stats/')
    const delta = (field: string) => after[field] - before[field]
    assert.equal(delta('question_count'), 2, 'published questions only')
    assert.equal(delta('question_vote_count'), 2)
    assert.equal(delta('choice_vote_count'), 1)
    assert.equal(delta('answer_count'), 3)
    assert.equal(delta('skip_count'), 1)
    assert.equal(delta('comment_count'), 1, 'a hidden comment does not count')
    assert.equal(delta('comment_vote_count'), 1)
    assert.equal(after.user_count, (await t.json('/api/user_count/')).result)
  })
})

describe('question_stats', () => {
  before(async () => {
    const question = await ask({ question: 'Should towpaths be lit at night?', tags: [{ tag: { id: ids.tag } }] })
    ids.lit = question.id
    await vote(ids.lit, 5, 'ann')
    await vote(ids.lit, 4, 'ann') // the 5 moves to the history
    await vote(ids.lit, 1, 'bob', { private: true })
    await vote(ids.lit, null, 'cat')
    ids.draft = (await insertQuestion(t.database.db, ids.author, { publish: false })).id
  })

  test('one question: the stored families, answer activity, choices and tags', async () => {
    const stats = await t.json(`/api/question_stats/${ids.lit}/`)
    const question = await t.json(`/api/questions/${ids.lit}/`)
    assert.equal(stats.url, `http://localhost:80/api/question_stats/${ids.lit}/`)
    assert.equal(stats.question_url, question.url)
    for (const [field, value] of Object.entries(question)) {
      if (/^(direct|liquid)_/.test(field) || field === 'polarisation') assert.equal(stats[field], value, field)
    }
    // Bob's private 1 is one private answer, fewer than MIN_CELL_SIZE: everyone sees the public answers only.
    assert.deepEqual(
      [stats.direct_minimum, stats.direct_low, stats.direct_medium, stats.direct_high, stats.direct_maximum],
      [0, 0, 0, 1, 0],
    )
    assert.equal(stats.direct_skipped, 1)
    assert.equal(stats.direct_vote_count, 1)
    assert.equal(stats.answer_count, 2, 'skips are answers')
    assert.equal(stats.private_answer_count, 0)
    assert.equal(stats.replaced_answer_count, 1)
    assert.match(stats.first_answer_at, TIMESTAMP)
    assert.ok(stats.last_answer_at >= stats.first_answer_at)
    assert.deepEqual(
      stats.tags.map((tag: any) => tag.tag.id),
      [ids.tag],
    )
    assert.deepEqual(stats.choices, [])
  })

  test('the listing takes the question filters and ordering; drafts are their author’s', async () => {
    const listed = await t.json(`/api/question_stats/?id=${ids.lit}`)
    assert.equal(listed.count, 1)
    assert.deepEqual(listed.results[0], await t.json(`/api/question_stats/${ids.lit}/`))
    const byVotes = await t.json('/api/question_stats/?ordering=-direct_vote_count&page_size=100')
    const counts = byVotes.results.map((q: any) => q.direct_vote_count)
    assert.deepEqual(
      counts,
      [...counts].sort((a: number, b: number) => b - a),
    )
    const answered = await t.json(`/api/question_stats/?answered_by=${ids.cat}`)
    assert.ok(answered.results.some((q: any) => q.id === ids.lit))
    assert.equal((await t.get(`/api/question_stats/${ids.draft}/`)).statusCode, 404)
    assert.equal((await t.get(`/api/question_stats/${ids.draft}/`, { authorization: `Token ${tokens.author}` })).statusCode, 200)
    assert.equal((await t.get('/api/question_stats/999999/')).statusCode, 404)
  })

  test('an unanswered question has zeros and no answer times', async () => {
    const quiet = await ask({ question: 'Should canals freeze in winter?' })
    const stats = await t.json(`/api/question_stats/${quiet.id}/`)
    assert.equal(stats.answer_count, 0)
    assert.equal(stats.direct_vote_count, 0)
    assert.equal(stats.direct_consensus, 0)
    assert.equal(stats.first_answer_at, null)
    assert.equal(stats.last_answer_at, null)
  })

  test('a page costs the same number of statements whatever its size', async () => {
    const small = await t.get('/api/question_stats/?page_size=1')
    const large = await t.get('/api/question_stats/?page_size=100')
    assert.equal(small.statusCode, 200)
    assert.ok(large.json().results.length > 3)
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })
})

describe('advanced_stats', () => {
  before(async () => {
    const db = t.database.db
    const at = (text: string) => new Date(text)
    const past = await insertUser(db, { created_at: at('2024-03-01T10:00:00Z') })
    await insertUser(db, { created_at: at('2024-03-03T23:59:00Z') })
    await insertUser(db, { created_at: at('2024-03-03T12:00:00Z'), is_deleted: true })
    await insertUser(db, { created_at: at('2024-02-10T08:00:00Z') })
    const question = await insertQuestion(db, past.id, { created_at: at('2024-03-02T09:00:00Z') })
    await db
      .insertInto('question_votes')
      .values([
        {
          question_id: question.id,
          user_id: past.id,
          value: 3,
          created_at: at('2024-03-02T10:00:00Z'),
          modified_at: at('2024-03-04T10:00:00Z'),
        },
        {
          question_id: question.id,
          user_id: ids.ann,
          value: 5,
          created_at: at('2024-03-04T11:00:00Z'),
          modified_at: at('2024-03-04T11:00:00Z'),
        },
      ])
      .execute()
    await db
      .insertInto('question_vote_history')
      .values({
        question_id: question.id,
        user_id: past.id,
        value: 1,
        skipped: false,
        private: false,
        answered_at: at('2024-03-02T10:00:00Z'),
      })
      .execute()
    await db
      .insertInto('comments')
      .values({ question_id: question.id, user_id: past.id, text: 'Old comment', created_at: at('2024-03-03T08:00:00Z') })
      .execute()
  })

  test('per day: sign-ups, a running user count, answers given (replaced ones at their time), people, questions, comments', async () => {
    const { results } = await t.json('/api/advanced_stats/?start=2024-03-01&end=2024-03-05')
    assert.deepEqual(results.labels, ['2024-03-01', '2024-03-02', '2024-03-03', '2024-03-04', '2024-03-05'])
    assert.equal(results.start, '2024-03-01')
    assert.equal(results.end, '2024-03-05')
    assert.equal(results.interval, 'day')
    assert.deepEqual(results.data.new_user_count, [1, 0, 1, 0, 0], 'deleted accounts are not counted')
    assert.deepEqual(results.data.user_count, [2, 2, 3, 3, 3], 'the February sign-up is counted from the start')
    assert.deepEqual(results.data.answer_count, [0, 1, 0, 2, 0])
    assert.deepEqual(results.data.answerer_count, [0, 1, 0, 2, 0])
    assert.deepEqual(results.data.question_count, [0, 1, 0, 0, 0])
    assert.deepEqual(results.data.comment_count, [0, 0, 1, 0, 0])
  })

  test('per ISO week and per month', async () => {
    const weeks = (await t.json('/api/advanced_stats/?start=2024-03-01&end=2024-03-10&interval=week')).results
    assert.deepEqual(weeks.labels, ['2024-02-26', '2024-03-04'])
    assert.deepEqual(weeks.data.answer_count, [1, 2])
    assert.deepEqual(weeks.data.new_user_count, [2, 0])
    const months = (await t.json('/api/advanced_stats/?start=2024-02-15&end=2024-03-31&interval=month')).results
    assert.deepEqual(months.labels, ['2024-02-01', '2024-03-01'])
    assert.deepEqual(months.data.new_user_count, [1, 2])
    assert.deepEqual(months.data.user_count, [1, 3])
  })

  test('by default the last 30 days up to today', async () => {
    const { results } = await t.json('/api/advanced_stats/')
    assert.equal(results.labels.length, 30)
    assert.equal(results.end, new Date().toISOString().slice(0, 10))
    assert.equal(results.data.user_count.at(-1), (await t.json('/api/user_count/')).result)
  })

  test('bad ranges answer 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['start=2024-03-05&end=2024-03-01', 'start'],
      ['start=2000-01-01&end=2024-01-01', 'interval'],
      ['start=yesterday', 'start'],
      ['end=2024-13-45', 'end'],
      ['interval=hour', 'interval'],
    ]
    for (const [query, field] of cases) {
      const response = await t.get(`/api/advanced_stats/?${query}`)
      assert.equal(response.statusCode, 400, query)
      assert.ok(Array.isArray(response.json()[field]), `${query}: ${response.body}`)
    }
  })
})
