import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { likertFigures } from '../../src/engines/statistics/likert.ts'
import { recomputeStatistics } from '../../src/engines/figures/recompute.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { assertStatistics, TIMESTAMP } from '../helpers/shapes.ts'
import { assertStoredEqualsRecomputed } from './stored-counters.ts'

let t: TestApp
const tokens: Record<string, string> = {}
const ids: Record<string, number> = {}

const ask = async (body: Record<string, unknown>, token = tokens.author) => {
  const response = await t.send('POST', '/api/questions/', body, token)
  assert.equal(response.statusCode, 201, response.body)
  return response.json()
}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['author', 'stranger', 'staff', 'voter']) {
    const user = await insertUser(db, { is_staff: name === 'staff' })
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  for (const name of ['trains', 'buses', 'bikes']) ids[name] = (await insertTag(db, `Transport ${name}`)).id
  ids.question = (await ask({ question: 'More trains or more buses?', tags: [{ tag: { id: ids.trains } }] })).id
  ids.other = (await ask({ question: 'Should cities ban cars?' })).id
  ids.draft = (await ask({ question: 'A hidden draft', publish: false })).id
  ids.mcq = (await ask({ question: 'Best way to commute?', choices: [{ text: 'Walk' }, { text: 'Cycle' }] })).id
  await db.insertInto('question_votes').values({ question_id: ids.question, user_id: ids.voter, value: 4 }).execute()
  await recomputeStatistics(db)
})
after(() => t.close())

describe('question_links', () => {
  test('the author adds, edits and removes links; others cannot', async () => {
    const created = await t.send(
      'POST',
      '/api/question_links/',
      { question: ids.question, link: 'https://example.org/rail', title: 'Rail facts' },
      tokens.author,
    )
    assert.equal(created.statusCode, 201, created.body)
    const link = created.json()
    assert.deepEqual(
      [link.question, link.user, link.link, link.title],
      [ids.question, ids.author, 'https://example.org/rail', 'Rail facts'],
    )
    assert.equal(link.url, `http://localhost:80/api/question_links/${link.id}/`)
    assertStatistics(link, 'direct')
    assert.match(link.created_at, TIMESTAMP)
    assert.deepEqual(
      (await t.json(`/api/questions/${ids.question}/`)).links.map((l: any) => l.link),
      ['https://example.org/rail'],
    )

    assert.equal(
      (await t.send('POST', '/api/question_links/', { question: ids.question, link: 'https://x.org' }, tokens.stranger)).statusCode,
      403,
    )
    assert.deepEqual(
      (await t.send('POST', '/api/question_links/', { question: ids.question, link: 'ftp://x.org' }, tokens.author)).json(),
      { link: ['Enter a valid URL.'] },
    )
    assert.deepEqual(
      (await t.send('POST', '/api/question_links/', { question: ids.draft, link: 'https://x.org' }, tokens.stranger)).json(),
      { question: [`Invalid pk "${ids.draft}" - object does not exist.`] },
    )

    const edited = await t.send('PATCH', `/api/question_links/${link.id}/`, { title: 'Railway facts' }, tokens.author)
    assert.equal(edited.json().title, 'Railway facts')
    assert.equal((await t.send('PATCH', `/api/question_links/${link.id}/`, { title: 'x' }, tokens.stranger)).statusCode, 403)
    assert.equal(
      (await t.send('PUT', `/api/question_links/${link.id}/`, { title: 'x' }, tokens.author)).statusCode,
      400,
      'PUT needs the link',
    )

    await t.send('POST', '/api/question_links/', { question: ids.other, link: 'https://example.org/cars' }, tokens.author)
    assert.deepEqual(
      (await t.json(`/api/question_links/?question=${ids.question}`)).results.map((l: any) => l.id),
      [link.id],
      'filter by question',
    )
    assert.equal((await t.send('DELETE', `/api/question_links/${link.id}/`, undefined, tokens.author)).statusCode, 204)
    assert.equal((await t.get(`/api/question_links/${link.id}/`)).statusCode, 404)
  })

  test("a draft's links are hidden from others", async () => {
    const link = (
      await t.send('POST', '/api/question_links/', { question: ids.draft, link: 'https://example.org/draft' }, tokens.author)
    ).json()
    assert.equal((await t.get(`/api/question_links/${link.id}/`)).statusCode, 404)
    assert.equal((await t.json(`/api/question_links/?question=${ids.draft}`)).count, 0)
    assert.equal((await t.json(`/api/question_links/?question=${ids.draft}`, { authorization: `Token ${tokens.author}` })).count, 1)
  })
})

describe('question_tags', () => {
  test('tagging and untagging move tag counters and the topic', async () => {
    const tag = (id: number) => t.json(`/api/tags/${id}/`)
    const buses = await tag(ids.buses)
    const created = await t.send('POST', '/api/question_tags/', { question: ids.question, tag: ids.buses }, tokens.author)
    assert.equal(created.statusCode, 201, created.body)
    const item = created.json()
    assert.deepEqual([item.question, item.tag.id, item.position], [ids.question, ids.buses, 1])
    assertStatistics(item, 'direct')
    assert.equal(item.liquid_vote_count, undefined)
    assert.deepEqual(
      [(await tag(ids.buses)).questions_count, (await tag(ids.buses)).votes_count],
      [buses.questions_count + 1, buses.votes_count + 1],
    )

    const duplicate = await t.send('POST', '/api/question_tags/', { question: ids.question, tag: ids.buses }, tokens.author)
    assert.deepEqual(
      [duplicate.statusCode, duplicate.json()],
      [400, { non_field_errors: ['The fields question, tag must make a unique set.'] }],
    )
    assert.deepEqual((await t.send('POST', '/api/question_tags/', { question: ids.question, tag: 99999999 }, tokens.author)).json(), {
      tag: ['Invalid pk "99999999" - object does not exist.'],
    })
    assert.equal((await t.send('POST', '/api/question_tags/', { question: ids.question, tag: ids.bikes }, tokens.stranger)).statusCode, 403)

    const listed = await t.json(`/api/question_tags/?question=${ids.question}`)
    assert.deepEqual(
      listed.results.map((qt: any) => [qt.tag.id, qt.position]),
      [
        [ids.trains, 0],
        [ids.buses, 1],
      ],
    )
    assert.deepEqual(
      (await t.json(`/api/question_tags/?tag=${ids.buses}`)).results.map((qt: any) => qt.question),
      [ids.question],
    )

    const topicRow = listed.results[0]
    assert.equal((await t.send('DELETE', `/api/question_tags/${topicRow.id}/`, undefined, tokens.stranger)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/question_tags/${topicRow.id}/`, undefined, tokens.author)).statusCode, 204)
    const q = await t.json(`/api/questions/${ids.question}/`)
    assert.equal(q.topic, ids.buses, 'the next tag becomes the topic')
    assert.deepEqual(
      q.tags.map((qt: any) => [qt.tag.id]),
      [[ids.buses]],
    )
    await assertStoredEqualsRecomputed(t.database.db)
  })

  test('the first tag of an untagged question is its topic; staff may tag any question', async () => {
    const response = await t.send('POST', '/api/question_tags/', { question: ids.other, tag: ids.bikes }, tokens.staff)
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().position, 0)
    assert.equal((await t.json(`/api/questions/${ids.other}/`)).topic, ids.bikes)
    await assertStoredEqualsRecomputed(t.database.db)
  })
})

describe('question_question_connections and their votes', () => {
  test('connect, list by either end, vote with replacement, withdraw', async () => {
    const created = await t.send(
      'POST',
      '/api/question_question_connections/',
      { question_from: ids.question, question_to: ids.other },
      tokens.stranger,
    )
    assert.equal(created.statusCode, 201, created.body)
    const connection = created.json()
    assert.deepEqual([connection.question_from, connection.question_to, connection.user], [ids.question, ids.other, ids.stranger])
    assertStatistics(connection, 'direct')

    assert.deepEqual(
      (
        await t.send('POST', '/api/question_question_connections/', { question_from: ids.question, question_to: ids.other }, tokens.author)
      ).json(),
      { non_field_errors: ['The fields question_from, question_to must make a unique set.'] },
    )
    assert.deepEqual(
      (
        await t.send(
          'POST',
          '/api/question_question_connections/',
          { question_from: ids.question, question_to: ids.question },
          tokens.author,
        )
      ).json(),
      { non_field_errors: ['A question cannot be connected to itself.'] },
    )
    assert.deepEqual(
      (
        await t.send('POST', '/api/question_question_connections/', { question_from: ids.draft, question_to: 99999999 }, tokens.stranger)
      ).json(),
      {
        question_from: [`Invalid pk "${ids.draft}" - object does not exist.`],
        question_to: ['Invalid pk "99999999" - object does not exist.'],
      },
    )
    const reverse = (
      await t.send('POST', '/api/question_question_connections/', { question_from: ids.other, question_to: ids.question }, tokens.author)
    ).json()

    assert.deepEqual(
      (await t.json(`/api/question_question_connections/?question_from=${ids.question}`)).results.map((c: any) => c.id),
      [connection.id],
    )
    assert.deepEqual(
      (await t.json(`/api/question_question_connections/?question_to=${ids.question}`)).results.map((c: any) => c.id),
      [reverse.id],
    )

    const vote = (value: number, token: string) =>
      t.send('POST', '/api/question_question_connection_votes/', { object_id: connection.id, value }, token)
    const first = await vote(5, tokens.voter)
    assert.equal(first.statusCode, 201, first.body)
    assert.deepEqual([first.json().object_id, first.json().value, first.json().user], [connection.id, 5, ids.voter])
    assert.equal((await vote(1, tokens.author)).statusCode, 201)
    const replaced = await vote(2, tokens.voter)
    assert.equal(replaced.statusCode, 200, 'a second vote replaces the first')
    assert.equal(replaced.json().id, first.json().id)
    const after = await t.json(`/api/question_question_connections/${connection.id}/`)
    const figures = likertFigures([1, 1, 0, 0, 0])
    assert.deepEqual([after.direct_minimum, after.direct_low, after.direct_vote_count], [1, 1, 2])
    assert.ok(Math.abs(after.direct_consensus - figures.consensus) < 1e-12)
    assert.deepEqual(
      (await t.json(`/api/question_question_connection_votes/?object_id=${connection.id}&user=${ids.voter}`)).results.map(
        (v: any) => v.value,
      ),
      [2],
    )

    assert.equal((await vote(6, tokens.voter)).statusCode, 400)
    assert.deepEqual(
      (await t.send('POST', '/api/question_question_connection_votes/', { object_id: 99999999, value: 3 }, tokens.voter)).json(),
      { object_id: ['Invalid pk "99999999" - object does not exist.'] },
    )
    assert.equal(
      (await t.send('DELETE', `/api/question_question_connection_votes/${first.json().id}/`, undefined, tokens.author)).statusCode,
      403,
    )
    assert.equal(
      (await t.send('DELETE', `/api/question_question_connection_votes/${first.json().id}/`, undefined, tokens.voter)).statusCode,
      204,
    )
    assert.equal((await t.json(`/api/question_question_connections/${connection.id}/`)).direct_vote_count, 1)
    await assertStoredEqualsRecomputed(t.database.db)

    assert.equal(
      (await t.send('DELETE', `/api/question_question_connections/${connection.id}/`, undefined, tokens.author)).statusCode,
      403,
      'only its creator or staff',
    )
    assert.equal(
      (await t.send('DELETE', `/api/question_question_connections/${connection.id}/`, undefined, tokens.stranger)).statusCode,
      204,
    )
  })

  test('concurrent votes on one connection keep exact figures', async () => {
    const connection = (
      await t.send('POST', '/api/question_question_connections/', { question_from: ids.mcq, question_to: ids.other }, tokens.author)
    ).json()
    const voters = await Promise.all(Array.from({ length: 12 }, async () => t.tokenFor((await insertUser(t.database.db)).id)))
    const responses = await Promise.all(
      voters.flatMap((token, i) =>
        [1, 2].map((round) =>
          t.send('POST', '/api/question_question_connection_votes/', { object_id: connection.id, value: ((i + round) % 5) + 1 }, token),
        ),
      ),
    )
    assert.ok(
      responses.every((r) => r.statusCode === 200 || r.statusCode === 201),
      responses.map((r) => r.statusCode).join(),
    )
    assert.equal((await t.json(`/api/question_question_connections/${connection.id}/`)).direct_vote_count, 12)
    await assertStoredEqualsRecomputed(t.database.db)
  })
})

describe('question_link_votes', () => {
  test('rate a link; figures follow', async () => {
    const link = (
      await t.send('POST', '/api/question_links/', { question: ids.other, link: 'https://example.org/useful' }, tokens.author)
    ).json()
    const response = await t.send('POST', '/api/question_link_votes/', { object_id: String(link.id), value: '4' }, tokens.voter)
    assert.equal(response.statusCode, 201, response.body)
    const rated = await t.json(`/api/question_links/${link.id}/`)
    assert.deepEqual([rated.direct_high, rated.direct_vote_count, rated.direct_value], [1, 1, 4])
    await assertStoredEqualsRecomputed(t.database.db)
  })
})

describe('question_choices writes', () => {
  test('the author adds, rewords and removes choices; answered ones stay', async () => {
    const base = '/api/question_choices/'
    const added = await t.send('POST', base, { question: ids.mcq, text: 'Train' }, tokens.author)
    assert.equal(added.statusCode, 201, added.body)
    assert.deepEqual(
      [added.json().text, added.json().store_number, added.json().question],
      ['Train', 2, `http://localhost:80/api/questions/${ids.mcq}/`],
    )
    assert.equal((await t.send('POST', base, { question: ids.mcq, text: 'Bus' }, tokens.stranger)).statusCode, 403)
    assert.deepEqual((await t.send('POST', base, { question: ids.other, text: 'Bus' }, tokens.author)).json(), {
      question: ['Only multiple-choice questions have choices; make it one by editing the question with its choices.'],
    })

    const [walk, cycle] = (await t.json(`/api/questions/${ids.mcq}/`)).choices
    await t.database.db
      .insertInto('question_choice_votes')
      .values({ question_id: ids.mcq, choice_id: cycle.id, user_id: ids.voter, value: 5 })
      .execute()
    await recomputeStatistics(t.database.db)
    assert.equal((await t.send('PATCH', `${base}${walk.id}/`, { text: 'Stroll' }, tokens.author)).json().text, 'Stroll')
    assert.deepEqual((await t.send('PATCH', `${base}${cycle.id}/`, { text: 'Bike' }, tokens.author)).json(), {
      text: ['This choice has answers; its text cannot change.'],
    })
    assert.equal((await t.send('DELETE', `${base}${cycle.id}/`, undefined, tokens.author)).statusCode, 400)
    assert.equal((await t.send('DELETE', `${base}${walk.id}/`, undefined, tokens.author)).statusCode, 204)
    const choices = (await t.json(`/api/questions/${ids.mcq}/`)).choices
    assert.deepEqual(
      choices.map((c: any) => [c.text, c.store_number]),
      [
        ['Cycle', 0],
        ['Train', 1],
      ],
      'store numbers close up',
    )
    const last = await t.send('DELETE', `${base}${choices[1].id}/`, undefined, tokens.author)
    assert.deepEqual(
      [last.statusCode, last.json()],
      [400, { non_field_errors: ['A multiple-choice question needs at least two choices.'] }],
    )
    await assertStoredEqualsRecomputed(t.database.db)
  })
})
