import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'
import { collection, hoursFromNow, inGroup, mcq, tagged } from './support.ts'

/**
 * Walks kept in memory (src/modules/next-question/kept-walks.ts): the same answers as the walk read whole from the
 * database, one statement once kept, and exact at once after any change of the questions, even one made behind
 * the process's back (another process, straight in the database).
 */
let t: TestApp
const ids: Record<string, number> = {}
const tokens: Record<string, string> = {}
let questions: number[] = []

before(async () => {
  t = await createTestApp('empty')
  const db = t.database.db
  for (const name of ['author', 'walker', 'other']) {
    const user = await insertUser(db)
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  questions = []
  for (let i = 0; i < 6; i++) questions.push((await insertQuestion(db, ids.author, { question: `Kept ${i}` })).id)
  const choice = await mcq(db, ids.author, { question: 'Kept choice' })
  questions.push(choice.id)
  ids.choice = choice.id
  ids.firstChoice = choice.choiceIds[0]
  ids.tag = (await insertTag(db)).id
  await tagged(db, ids.tag, [questions[1], questions[2], questions[3], ids.choice])
  ids.group = (await insertGroup(db)).id
  await inGroup(db, ids.group, [questions[0], questions[4]])
  ids.collection = await collection(db, ids.author, [
    { questionId: questions[5], order: 1 },
    { questionId: questions[2], order: 2 },
    { questionId: ids.choice, order: 3 },
  ])
})
after(() => t.close())

const as = (who: string) => ({ authorization: `Token ${tokens[who]}` })
const ids_ = (body: { results: { id: number }[] }) => body.results.map((q) => q.id)

/** Kept walks, and beside each the same query with an ordering that is read whole from the database. */
function queries(): string[] {
  return [
    '',
    `tags__tag=${ids.tag}`,
    `group=${ids.group}`,
    `id__in=${questions[0]},${questions[3]},${ids.choice}`,
    `in_collections__parent=${ids.collection}`,
    `tags__tag=${ids.tag}&id__in!=${questions[2]}`,
  ]
}

async function assertSameAsWhole(who: string | null, label: string) {
  for (const query of queries()) {
    for (const limit of [1, 3, 30]) {
      const headers = who ? as(who) : {}
      const kept = await t.json(`/api/next_question_light/?${query}&limit_count=${limit}`, headers)
      const whole = await t.json(`/api/next_question_light/?${query}&limit_count=${limit}&ordering=id,-created_at`, headers)
      assert.deepEqual(kept, whole, `${label}, ${who ?? 'anyone'}: ?${query}&limit_count=${limit}`)
      const counts = await t.json(`/api/next_question/?${query}&return_unanswered_count=1`, headers)
      assert.deepEqual(counts, { returning: 0, results: [], count: whole.count, unanswered: whole.unanswered })
    }
  }
}

test('a kept walk answers as the walk read whole: anyone, a walker as they answer, likert and choice', async () => {
  await assertSameAsWhole(null, 'no answers')
  await assertSameAsWhole('walker', 'no answers')
  for (const [step, question] of [questions[1], questions[2], ids.choice].entries()) {
    const cast =
      question === ids.choice
        ? await t.send('POST', '/api/question_choice_votes/', { object_id: ids.firstChoice, value: 5 }, tokens.walker)
        : await t.send('POST', '/api/question_votes/', { object_id: question, value: step === 0 ? null : 2 }, tokens.walker)
    assert.equal(cast.statusCode, 201, cast.body)
    await assertSameAsWhole('walker', `after ${step + 1} answers`)
  }
  const tagged = await t.json(`/api/next_question_light/?tags__tag=${ids.tag}&limit_count=30`, as('walker'))
  assert.deepEqual(ids_(tagged), [questions[3]])
  assert.equal(tagged.count, 4)
  assert.equal(tagged.unanswered, 1)
})

test('the collection in its item order, kept, as the web app walks it', async () => {
  const first = await t.json(`/api/next_question_light/?in_collections__parent=${ids.collection}&order=true&limit_count=30`, as('other'))
  assert.deepEqual(ids_(first), [questions[5], questions[2], ids.choice])
  const cast = await t.send('POST', '/api/question_votes/', { object_id: questions[5], value: 4 }, tokens.other)
  assert.equal(cast.statusCode, 201)
  const next = await t.json(`/api/next_question_light/?in_collections__parent=${ids.collection}&order=true`, as('other'))
  assert.deepEqual(ids_(next), [questions[2]])
  assert.deepEqual([next.count, next.unanswered], [3, 2])
})

test('once kept, with tokens, records and walks in memory, a walk takes no statement, and follows the walker at once', async () => {
  const kept = await createTestApp('empty', { RESPONSE_CACHE_MB: '8', TOKEN_CACHE_ENTRIES: '100', OWN_RECORDS_MB: '8' })
  const whole = await createTestApp('empty', {}, undefined, { database: kept.database })
  try {
    const db = kept.database.db
    const user = await insertUser(db)
    const token = await kept.tokenFor(user.id)
    const tag = (await insertTag(db)).id
    const author = await insertUser(db)
    const tagged_ = [(await insertQuestion(db, author.id)).id, (await insertQuestion(db, author.id)).id]
    await tagged(db, tag, tagged_)
    const me = { authorization: `Token ${token}` }
    for (const url of [
      `/api/next_question_light/?tags__tag=${tag}&limit_count=2`,
      // Not a kept walk by version: read whole once until the data changes.
      `/api/next_question_light/?tags__tag=${tag}&limit_count=2&ordering=-liquid_consensus,question`,
      `/api/next_question/?answered_by=${author.id}&limit_count=100`,
    ]) {
      const first = await kept.get(url, me)
      let again = await kept.get(url, me)
      // Notices of the fixtures' writes may still arrive.
      for (let i = 0; i < 50 && again.headers['x-query-count'] !== '0'; i++) again = await kept.get(url, me)
      assert.equal(again.headers['x-query-count'], '0', url)
      assert.equal(again.body, first.body, url)
      assert.equal(again.body, (await whole.get(url, me)).body, `${url}: as the walk read whole`)
      await kept.get(url)
      assert.equal((await kept.get(url)).headers['x-query-count'], '0', `${url}, anyone`)
    }
    // The walker's own answer shows in their next walk at once, read whole again only for them.
    const url = `/api/next_question_light/?tags__tag=${tag}&limit_count=2`
    const cast = await kept.send('POST', '/api/question_votes/', { object_id: tagged_[0], value: 3 }, token)
    assert.equal(cast.statusCode, 201, cast.body)
    const after = await kept.get(url, me)
    assert.deepEqual(ids_(after.json()), [tagged_[1]])
    assert.equal(after.json().unanswered, 1)
    assert.equal(after.body, (await whole.get(url, me)).body)
    assert.ok(Number(after.headers['x-query-count']) <= 1, `${after.headers['x-query-count']} statements after the walker's answer`)
    // Someone else's answer to the question served: its figures are read again, in one statement, its text kept.
    const other = await insertUser(db)
    const theirs = await kept.send('POST', '/api/question_votes/', { object_id: tagged_[1], value: 4 }, await kept.tokenFor(other.id))
    assert.equal(theirs.statusCode, 201, theirs.body)
    const counted = (response: { json: () => { results: { liquid_vote_count: number }[] } }) =>
      response.json().results[0]!.liquid_vote_count
    let seen = await kept.get(url, me)
    // Its notice arrives a moment after the commit.
    for (let i = 0; i < 100 && counted(seen) === counted(after); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      seen = await kept.get(url, me)
    }
    assert.equal(counted(seen), counted(after) + 1)
    assert.equal(seen.body, (await whole.get(url, me)).body)
    assert.equal(seen.headers['x-query-count'], '1', 'the figures alone')
    assert.equal((await kept.get(url, me)).headers['x-query-count'], '0')
  } finally {
    await whole.close()
    await kept.close()
  }
})

test('a question published, opened, closed, tagged or added shows at once, even when written behind the process', async () => {
  const db = t.database.db
  const url = `/api/next_question_light/?tags__tag=${ids.tag}&limit_count=30`
  const before = await t.json(url, as('other'))
  const draft = await insertQuestion(db, ids.author, { question: 'Kept draft', publish: false })
  await tagged(db, ids.tag, [draft.id])
  assert.equal((await t.json(url, as('other'))).count, before.count, 'a draft is not counted')
  await db.updateTable('questions').set({ publish: true }).where('id', '=', draft.id).execute()
  const published = await t.json(url, as('other'))
  assert.equal(published.count, before.count + 1)
  assert.ok(ids_(published).includes(draft.id))
  await db
    .updateTable('questions')
    .set({ end_at: hoursFromNow(-1) })
    .where('id', '=', draft.id)
    .execute()
  assert.equal((await t.json(url, as('other'))).count, before.count, 'closed')
  await db
    .updateTable('questions')
    .set({ end_at: null, start_at: hoursFromNow(1) })
    .where('id', '=', draft.id)
    .execute()
  assert.equal((await t.json(url, as('other'))).count, before.count, 'not open yet')
  await db.updateTable('questions').set({ start_at: null }).where('id', '=', draft.id).execute()
  assert.equal((await t.json(url, as('other'))).count, before.count + 1, 'open again')
  await db.deleteFrom('question_tags').where('question_id', '=', draft.id).execute()
  assert.equal((await t.json(url, as('other'))).count, before.count, 'untagged')

  // Through the API: a new question, then the walk of every question.
  const everything = await t.json('/api/next_question/?return_full_count=1', as('other'))
  const created = await t.send('POST', '/api/questions/', { question: 'Kept through the API', description: 'New' }, tokens.author)
  assert.equal(created.statusCode, 201, created.body)
  const after = await t.json('/api/next_question/?return_full_count=1', as('other'))
  assert.equal(after.count, everything.count + 1)
})

test('the figures of the question served follow the answers of others at once', async () => {
  const url = `/api/next_question_light/?id__in=${questions[4]}`
  const before = (await t.json(url, as('walker'))).results[0]
  const cast = await t.send('POST', '/api/question_votes/', { object_id: questions[4], value: 5 }, tokens.other)
  assert.equal(cast.statusCode, 201)
  const after = (await t.json(url, as('walker'))).results[0]
  assert.equal(after.liquid_vote_count, before.liquid_vote_count + 1)
})

test("many asking at once after another's answer share one read of the served question's figures", async () => {
  const kept = await createTestApp('empty', { RESPONSE_CACHE_MB: '8', TOKEN_CACHE_ENTRIES: '100', OWN_RECORDS_MB: '8' })
  try {
    const db = kept.database.db
    const [walker, other, author] = [await insertUser(db), await insertUser(db), await insertUser(db)]
    const me = { authorization: `Token ${await kept.tokenFor(walker.id)}` }
    const tag = (await insertTag(db)).id
    const question = (await insertQuestion(db, author.id)).id
    await tagged(db, tag, [question])
    const url = `/api/next_question_light/?tags__tag=${tag}`
    const before = (await kept.json(url, me)).results[0]
    // Once the notices of the fixtures' writes have come, it is kept.
    let again = await kept.get(url, me)
    for (let i = 0; i < 50 && again.headers['x-query-count'] !== '0'; i++) again = await kept.get(url, me)
    assert.equal(again.headers['x-query-count'], '0', 'kept')
    const heard = kept.app.keptQuestions.figuresNotices
    const cast = await kept.send('POST', '/api/question_votes/', { object_id: question, value: 4 }, await kept.tokenFor(other.id))
    assert.equal(cast.statusCode, 201, cast.body)
    for (let i = 0; i < 200 && kept.app.keptQuestions.figuresNotices === heard; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    const together = await Promise.all(Array.from({ length: 8 }, () => kept.get(url, me)))
    const statements = together.map((response) => Number(response.headers['x-query-count']))
    assert.equal(
      statements.reduce((a, b) => a + b, 0),
      1,
      `one read for all: ${statements}`,
    )
    for (const response of together) {
      assert.equal(response.body, together[0]!.body)
      assert.equal(response.json().results[0].liquid_vote_count, before.liquid_vote_count + 1)
    }
  } finally {
    await kept.close()
  }
})
