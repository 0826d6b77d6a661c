import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { assertStoredEqualsRecomputed, likertQuestion, mcqQuestion } from './support.ts'

/**
 * Many voters at once on one likert question, one multiple-choice question and one question-tag:
 * new answers, replacements, the same voter twice at the same moment, skips, private answers, edits
 * and withdrawals, each round sent as one Promise.all. On PostgreSQL the requests overlap for real;
 * on PGlite they run one after another. Afterwards every stored figure must equal a recomputation,
 * and what the API shows must equal what the test computes from what it sent.
 */

let t: TestApp
const VOTERS = 30
const LATECOMERS = 6
interface Voter {
  id: number
  token: string
  defaultPrivate: boolean
}
const voters: Voter[] = []
let staffToken = ''
let authorToken = ''
let likert = 0
let mcq = 0
let choiceIds: number[] = []
let tagId = 0
let questionTagId = 0

/** What each voter's current answer should be, as the test tracks it from what it sent. */
interface Current {
  id: number
  value: number | null
  private: boolean
}
const likertVotes = new Map<number, Current>()
const picks = new Map<number, Current & { choice: number }>()
const tagVotes = new Map<number, { id: number; value: number }>()
/** Answers given per voter and question (POSTs and value edits), each of which ends current or in the history. */
const answersGiven = new Map<string, number>()
const given = (voter: number, question: number) =>
  answersGiven.set(`${voter}:${question}`, (answersGiven.get(`${voter}:${question}`) ?? 0) + 1)

const auth = (token?: string): Record<string, string> => (token ? { authorization: `Token ${token}` } : {})
const privateOf = (voter: Voter, sent: boolean | undefined) => sent ?? voter.defaultPrivate
/** Three kinds of privacy: explicitly private, explicitly public, and absent (the voter's default). */
const privacyFor = (n: number): boolean | undefined => (n % 3 === 1 ? true : n % 3 === 2 ? false : undefined)

function assertStatus(response: LightMyRequestResponse, status: number, what: string) {
  assert.equal(response.statusCode, status, `${what}: ${response.body}`)
}

before(async () => {
  // Arithmetic on tiny questions: every private answer counts in the figures (docs/statistics.md).
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1' })
  const db = t.database.db
  const author = await insertUser(db)
  authorToken = await t.tokenFor(author.id)
  staffToken = await t.tokenFor((await insertUser(db, { is_staff: true })).id)
  for (let i = 0; i < VOTERS + LATECOMERS; i++) {
    const defaultPrivate = i % 8 === 7
    const user = await insertUser(db, { default_private: defaultPrivate })
    voters.push({ id: user.id, token: await t.tokenFor(user.id), defaultPrivate })
  }
  likert = (await likertQuestion(db, author.id)).id
  const question = await mcqQuestion(db, author.id, 4)
  mcq = question.id
  choiceIds = question.choiceIds
  tagId = (await insertTag(db)).id
  const tagged = await t.send('POST', '/api/question_tags/', { question: likert, tag: tagId }, authorToken)
  assertStatus(tagged, 201, 'tagging the likert question')
  questionTagId = tagged.json().id
})
after(() => t.close())

/** A likert answer: a rating, or a skip (null). */
async function answerLikert(i: number, value: number | null, sentPrivate: boolean | undefined) {
  const voter = voters[i]
  const body: Record<string, unknown> = { object_id: likert, value }
  if (sentPrivate !== undefined) body.private = sentPrivate
  const response = await t.send('POST', '/api/question_votes/', body, voter.token)
  return { i, value, private: privateOf(voter, sentPrivate), response }
}

async function pick(i: number, choice: number, value: number | null, sentPrivate: boolean | undefined) {
  const voter = voters[i]
  const body: Record<string, unknown> = { object_id: choice, value }
  if (sentPrivate !== undefined) body.private = sentPrivate
  const response = await t.send('POST', '/api/question_choice_votes/', body, voter.token)
  return { i, choice, value, private: privateOf(voter, sentPrivate), response }
}

async function rateTag(i: number, value: number) {
  const response = await t.send('POST', '/api/question_tag_votes/', { object_id: questionTagId, value }, voters[i].token)
  return { i, value, response }
}

describe('many voters at once', () => {
  test('round 1: first answers, skips, private ones, and the same voter twice at the same moment', async () => {
    const likertRequests = []
    const pickRequests = []
    const tagRequests = []
    for (let i = 0; i < VOTERS; i++) {
      likertRequests.push(answerLikert(i, i % 6 === 5 ? null : (i % 5) + 1, privacyFor(i)))
      pickRequests.push(pick(i, choiceIds[i % 4], i % 7 === 6 ? null : 5, privacyFor(i + 1)))
      if (i % 3 !== 2) tagRequests.push(rateTag(i, (i % 5) + 1))
    }
    // Voters 0..3 send a second likert answer, and voters 4..7 a second pick, alongside their first.
    const likertDoubles = [0, 1, 2, 3].map((i) => answerLikert(i, ((i + 2) % 5) + 1, false))
    const pickDoubles = [4, 5, 6, 7].map((i) => pick(i, choiceIds[(i + 1) % 4], 5, true))
    const [likertDone, pickDone, tagDone, likertDoublesDone, pickDoublesDone] = await Promise.all([
      Promise.all(likertRequests),
      Promise.all(pickRequests),
      Promise.all(tagRequests),
      Promise.all(likertDoubles),
      Promise.all(pickDoubles),
    ])

    for (const done of tagDone) {
      assertStatus(done.response, 201, `tag vote of voter ${done.i}`)
      tagVotes.set(done.i, { id: done.response.json().id, value: done.value })
    }
    // For a voter who answered twice at once, one answer was first (201) and the other replaced it (200).
    const settle = <T extends { i: number; response: LightMyRequestResponse }>(all: T[], record: (done: T) => void, question: number) => {
      const byVoter = new Map<number, T[]>()
      for (const done of all) byVoter.set(done.i, [...(byVoter.get(done.i) ?? []), done])
      for (const [i, list] of byVoter) {
        const statuses = list.map((d) => d.response.statusCode).sort()
        assert.deepEqual(statuses, list.length === 1 ? [201] : [200, 201], `voter ${i}: ${list.map((d) => d.response.body).join(' | ')}`)
        assert.equal(new Set(list.map((d) => d.response.json().id)).size, 1, 'the replacing answer keeps the vote’s id')
        list.forEach(() => given(i, question))
        const last = list.find((d) => d.response.statusCode === (list.length === 1 ? 201 : 200))!
        record(last)
      }
    }
    settle(
      [...likertDone, ...likertDoublesDone],
      (d) => likertVotes.set(d.i, { id: d.response.json().id, value: d.value, private: d.private }),
      likert,
    )
    settle(
      [...pickDone, ...pickDoublesDone],
      (d) => picks.set(d.i, { id: d.response.json().id, choice: d.choice, value: d.value, private: d.private }),
      mcq,
    )
    for (const done of [...likertDone, ...likertDoublesDone, ...pickDone, ...pickDoublesDone]) {
      const body = done.response.json()
      assert.equal(body.user, voters[done.i].id)
      assert.equal(body.skipped, done.value === null)
      assert.equal(body.private, done.private)
    }
    assert.equal(likertVotes.size, VOTERS)
    assert.equal(picks.size, VOTERS)
    await assertStoredEqualsRecomputed(t.database.db, 'after round 1')
  })

  test('round 2: replacements, edits, withdrawals and newcomers, all at once', async () => {
    const work: Promise<() => void>[] = []
    const likertPath = (i: number) => `/api/question_votes/${likertVotes.get(i)!.id}/`
    const pickPath = (i: number) => `/api/question_choice_votes/${picks.get(i)!.id}/`
    for (let i = 0; i < VOTERS; i++) {
      const voter = voters[i]
      switch (i % 5) {
        case 0: {
          const value = ((i + 3) % 5) + 1
          work.push(
            t.send('PATCH', likertPath(i), { value }, voter.token).then((r) => () => {
              assertStatus(r, 200, `likert edit of voter ${i}`)
              likertVotes.set(i, { ...likertVotes.get(i)!, value })
              given(i, likert)
            }),
          )
          work.push(
            t.send('PATCH', pickPath(i), { private: true }, voter.token).then((r) => () => {
              assertStatus(r, 200, `privacy of voter ${i}`)
              picks.set(i, { ...picks.get(i)!, private: true })
            }),
          )
          break
        }
        case 1: {
          work.push(
            answerLikert(i, null, undefined).then((d) => () => {
              assertStatus(d.response, 200, `likert skip of voter ${i}`)
              likertVotes.set(i, { id: d.response.json().id, value: null, private: d.private })
              given(i, likert)
            }),
          )
          work.push(
            pick(i, choiceIds[(i + 1) % 4], 5, false).then((d) => () => {
              assertStatus(d.response, 200, `new pick of voter ${i}`)
              picks.set(i, { id: d.response.json().id, choice: d.choice, value: 5, private: false })
              given(i, mcq)
            }),
          )
          break
        }
        case 2: {
          work.push(
            t.send('DELETE', likertPath(i), undefined, voter.token).then((r) => () => {
              assertStatus(r, 204, `likert withdrawal of voter ${i}`)
              likertVotes.delete(i)
            }),
          )
          work.push(
            rateTag(i, 1).then((d) => () => {
              assertStatus(d.response, tagVotes.has(i) ? 200 : 201, `tag vote of voter ${i}`)
              tagVotes.set(i, { id: d.response.json().id, value: 1 })
            }),
          )
          break
        }
        case 3: {
          work.push(
            t.send('DELETE', pickPath(i), undefined, voter.token).then((r) => () => {
              assertStatus(r, 204, `pick withdrawal of voter ${i}`)
              picks.delete(i)
            }),
          )
          work.push(
            answerLikert(i, 5, true).then((d) => () => {
              assertStatus(d.response, 200, `likert replacement of voter ${i}`)
              likertVotes.set(i, { id: d.response.json().id, value: 5, private: true })
              given(i, likert)
            }),
          )
          break
        }
        case 4: {
          work.push(
            t.send('DELETE', likertPath(i), undefined, voter.token).then((r) => () => {
              assertStatus(r, 204, `likert withdrawal of voter ${i}`)
              likertVotes.delete(i)
            }),
          )
          work.push(
            t.send('DELETE', pickPath(i), undefined, voter.token).then((r) => () => {
              assertStatus(r, 204, `pick withdrawal of voter ${i}`)
              picks.delete(i)
            }),
          )
          const tagVote = tagVotes.get(i)
          if (tagVote) {
            work.push(
              t.send('DELETE', `/api/question_tag_votes/${tagVote.id}/`, undefined, voter.token).then((r) => () => {
                assertStatus(r, 204, `tag vote withdrawal of voter ${i}`)
                tagVotes.delete(i)
              }),
            )
          }
          break
        }
      }
    }
    for (let i = VOTERS; i < VOTERS + LATECOMERS; i++) {
      const value = i % 2 ? null : (i % 5) + 1
      work.push(
        answerLikert(i, value, privacyFor(i)).then((d) => () => {
          assertStatus(d.response, 201, `first answer of latecomer ${i}`)
          likertVotes.set(i, { id: d.response.json().id, value, private: d.private })
          given(i, likert)
        }),
      )
      work.push(
        pick(i, choiceIds[i % 4], 5, privacyFor(i)).then((d) => () => {
          assertStatus(d.response, 201, `first pick of latecomer ${i}`)
          picks.set(i, { id: d.response.json().id, choice: d.choice, value: 5, private: d.private })
          given(i, mcq)
        }),
      )
    }
    const checks = await Promise.all(work)
    for (const check of checks) check()
    await assertStoredEqualsRecomputed(t.database.db, 'after round 2')
  })

  test('round 3: those who withdrew answer again while others withdraw', async () => {
    const work: Promise<() => void>[] = []
    for (let i = 0; i < VOTERS; i++) {
      const voter = voters[i]
      if (i % 5 === 4) {
        work.push(
          answerLikert(i, 2, undefined).then((d) => () => {
            assertStatus(d.response, 201, `new answer after a withdrawal, voter ${i}`)
            likertVotes.set(i, { id: d.response.json().id, value: 2, private: d.private })
            given(i, likert)
          }),
        )
        work.push(
          pick(i, choiceIds[0], null, undefined).then((d) => () => {
            assertStatus(d.response, 201, `new pick after a withdrawal, voter ${i}`)
            picks.set(i, { id: d.response.json().id, choice: d.choice, value: null, private: d.private })
            given(i, mcq)
          }),
        )
      } else if (i % 5 === 0) {
        work.push(
          t.send('DELETE', `/api/question_votes_light/${likertVotes.get(i)!.id}/`, undefined, voter.token).then((r) => () => {
            assertStatus(r, 204, `withdrawal of voter ${i}`)
            likertVotes.delete(i)
          }),
        )
        work.push(
          t.send('DELETE', `/api/question_choice_votes_light/${picks.get(i)!.id}/`, undefined, voter.token).then((r) => () => {
            assertStatus(r, 204, `pick withdrawal of voter ${i}`)
            picks.delete(i)
          }),
        )
      } else if (i % 5 === 1) {
        work.push(
          answerLikert(i, 3, undefined).then((d) => () => {
            assertStatus(d.response, 200, `replacement by voter ${i}`)
            likertVotes.set(i, { id: d.response.json().id, value: 3, private: d.private })
            given(i, likert)
          }),
        )
      }
    }
    const checks = await Promise.all(work)
    for (const check of checks) check()
    await assertStoredEqualsRecomputed(t.database.db, 'after round 3')
  })
})

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']
/** The family a set of answers should produce: counts per level, skips and vote_count. */
function family(values: (number | null)[]) {
  const levels = LEVELS.map((_, i) => values.filter((v) => v === i + 1).length)
  return {
    ...Object.fromEntries(LEVELS.map((name, i) => [name, levels[i]])),
    skipped: values.filter((v) => v === null).length,
    vote_count: levels.reduce((a, b) => a + b, 0),
  }
}
function shown(item: Record<string, unknown>, prefix: 'direct' | 'liquid') {
  return Object.fromEntries([...LEVELS, 'skipped', 'vote_count'].map((name) => [name, item[`${prefix}_${name}`]]))
}

describe('what the API shows afterwards equals what was sent', () => {
  test('every stored figure equals a recomputation', async () => {
    await assertStoredEqualsRecomputed(t.database.db, 'after every round')
  })

  test('the likert question’s families, its tag’s votes_count and its question-tag’s family', async () => {
    const question = await t.json(`/api/questions/${likert}/`)
    const expected = family([...likertVotes.values()].map((v) => v.value))
    assert.ok(expected.vote_count > 10 && expected.skipped > 0, 'the rounds leave ratings and skips')
    assert.deepEqual(shown(question, 'direct'), expected)
    assert.deepEqual(shown(question, 'liquid'), expected)
    const ratings = [...likertVotes.values()].flatMap((v) => (v.value === null ? [] : [v.value]))
    assert.equal(
      question.direct_sum,
      ratings.reduce((a, b) => a + b, 0),
    )
    assert.equal(
      (await t.json(`/api/tags/${tagId}/`)).votes_count,
      likertVotes.size,
      'a tag counts the current answers (skips too) of the questions it carries',
    )
    const questionTag = await t.json(`/api/question_tags/${questionTagId}/`)
    assert.deepEqual(shown(questionTag, 'direct'), family([...tagVotes.values()].map((v) => v.value)))
    assert.deepEqual(shown(question.tags[0], 'direct'), shown(questionTag, 'direct'))
  })

  test('each choice’s families; the question’s own stay empty', async () => {
    const question = await t.json(`/api/questions/${mcq}/`)
    for (const choice of question.choices) {
      const values = [...picks.values()].filter((p) => p.choice === choice.id).map((p) => p.value)
      assert.deepEqual(shown(choice, 'direct'), family(values), `choice ${choice.id}`)
      assert.deepEqual(shown(choice, 'liquid'), family(values), `choice ${choice.id}`)
    }
    const total = question.choices.reduce(
      (sum: number, c: { direct_vote_count: number; direct_skipped: number }) => sum + c.direct_vote_count + c.direct_skipped,
      0,
    )
    assert.equal(total, picks.size, 'one current pick per voter')
    assert.equal(question.direct_vote_count, 0)
  })

  test('the listings: staff see every current answer, anyone the public ones', async () => {
    const everything = await t.json(`/api/question_votes/?question=${likert}&page_size=100`, auth(staffToken))
    assert.equal(everything.count, likertVotes.size)
    const byUser = new Map(everything.results.map((r: { user: number; value: number | null; private: boolean; id: number }) => [r.user, r]))
    voters.forEach((voter, i) => {
      const want = likertVotes.get(i)
      const got = byUser.get(voter.id) as { id: number; value: number | null; private: boolean } | undefined
      assert.deepEqual(got && { id: got.id, value: got.value, private: got.private }, want, `voter ${i}’s likert answer`)
    })
    const publicOnes = await t.json(`/api/question_votes/?question=${likert}&page_size=100`)
    assert.equal(publicOnes.count, [...likertVotes.values()].filter((v) => !v.private).length)

    const allPicks = await t.json(`/api/question_choice_votes/?question=${mcq}&page_size=100`, auth(staffToken))
    assert.equal(allPicks.count, picks.size)
    const pickByUser = new Map(allPicks.results.map((r: { user: number }) => [r.user, r]))
    voters.forEach((voter, i) => {
      const want = picks.get(i)
      const got = pickByUser.get(voter.id) as { id: number; object_id: number; value: number | null; private: boolean } | undefined
      assert.deepEqual(got && { id: got.id, choice: got.object_id, value: got.value, private: got.private }, want, `voter ${i}’s pick`)
    })
    const publicPicks = await t.json(`/api/question_choice_votes/?question=${mcq}&page_size=100`)
    assert.equal(publicPicks.count, [...picks.values()].filter((p) => !p.private).length)
    assert.equal((await t.json(`/api/question_tag_votes/?object_id=${questionTagId}&page_size=100`, auth(staffToken))).count, tagVotes.size)
  })

  test('each voter’s my_vote, counters and history', async () => {
    await Promise.all(
      voters.map(async (voter, i) => {
        const headers = auth(voter.token)
        const [onLikert, onMcq, user, seen, likertHistory, mcqHistory] = await Promise.all([
          t.json(`/api/questions/${likert}/`, headers),
          t.json(`/api/questions/${mcq}/`, headers),
          t.json(`/api/users/${voter.id}/`, headers),
          t.json(`/api/users/${voter.id}/`),
          t.json(`/api/question_history_simple/?question=${likert}&page_size=100`, headers),
          t.json(`/api/question_history_simple/?question=${mcq}&page_size=100`, headers),
        ])
        const answer = likertVotes.get(i)
        assert.deepEqual(
          onLikert.my_vote.map((v: Current) => ({ id: v.id, value: v.value, private: v.private })),
          answer ? [answer] : [],
          `voter ${i}’s my_vote`,
        )
        const chosen = picks.get(i)
        assert.deepEqual(
          onMcq.my_vote.map((v: Current & { object_id: number }) => ({
            id: v.id,
            choice: v.object_id,
            value: v.value,
            private: v.private,
          })),
          chosen ? [chosen] : [],
          `voter ${i}’s pick in my_vote`,
        )
        assert.equal(user.count_question_votes, answer ? 1 : 0, `voter ${i}’s count_question_votes`)
        assert.equal(user.count_choice_votes, chosen ? 1 : 0, `voter ${i}’s count_choice_votes`)
        assert.equal(user.count_votes, user.count_question_votes + user.count_choice_votes)
        // Anyone else sees public answers counted only.
        assert.equal(seen.count_question_votes, answer && !answer.private ? 1 : 0, `voter ${i}’s public count_question_votes`)
        assert.equal(seen.count_choice_votes, chosen && !chosen.private ? 1 : 0, `voter ${i}’s public count_choice_votes`)
        assert.equal(seen.count_votes, seen.count_question_votes + seen.count_choice_votes)
        assert.equal(likertHistory.count, answersGiven.get(`${i}:${likert}`) ?? 0, `voter ${i}’s likert history`)
        assert.equal(mcqHistory.count, answersGiven.get(`${i}:${mcq}`) ?? 0, `voter ${i}’s pick history`)
        assert.equal(likertHistory.results.filter((e: { current: boolean }) => e.current).length, answer ? 1 : 0)
      }),
    )
  })
})
