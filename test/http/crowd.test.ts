import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * A town-hall meeting: 200 people on one Wi-Fi address sign up the way the web app does (check_email, register,
 * sign in, read their profile, then answer), at the service's default limits. The rate-limit clock is the test's,
 * so simulated minutes pass without waiting, and scrypt runs at the tests' lower cost (the gate in front of it is
 * the default one): 400 hashes at full cost take minutes of CPU, which docs/auth.md reports measured.
 */
const PEOPLE = 200
const PER_MINUTE = 40 // twice the pace of 200 people in ten minutes
const MINUTE = 60_000

let t: TestApp
let now = Date.parse('2030-01-01T09:00:00Z')
before(async () => {
  t = await createTestApp('tiny', {}, undefined, { defaultLimits: true, rateLimitClock: () => now })
})
after(() => t.close())

const json = (method: 'GET' | 'POST', url: string, body?: unknown, token?: string) =>
  t.request({
    method,
    url,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  })

function expect(response: { statusCode: number; body: string }, status: number, step: string) {
  assert.equal(response.statusCode, status, `${step}: ${response.body}`)
}

const person = (i: number) => ({
  email: `resident${i}@example.org`,
  username: `resident_${i}`,
  password: `town hall ${i} evening ${i * 7919}`,
})

/** What one person's browser sends, from the shared address. */
async function joinAndAnswer(i: number): Promise<void> {
  const { email, username, password } = person(i)
  const checked = await json('GET', `/auth/check_email/?email=${email}`)
  expect(checked, 200, 'check_email')
  assert.equal(checked.json().result, false)
  expect(await json('POST', '/auth/register/', { email, username, password, agreed_terms: true }), 201, 'register')
  const signedIn = await json('POST', '/auth/login/', { username: email, password })
  expect(signedIn, 200, 'login')
  const token = signedIn.json().auth_token as string
  expect(await json('GET', '/auth/me/', undefined, token), 200, 'me')
  const next = await json('GET', '/api/next_question/', undefined, token)
  expect(next, 200, 'next_question')
  const question = (next.json().results as Array<{ id: number; subtype: string; choices: Array<{ id: number }> }>)[0]
  const answered =
    question.subtype === 'mcq'
      ? await json('POST', '/api/question_choice_votes/', { object_id: question.choices[0].id, value: 4 }, token)
      : await json('POST', '/api/question_votes/', { object_id: question.id, value: 1 + (i % 5) }, token)
  expect(answered, 201, 'answer')
}

test('200 people behind one address register, sign in and answer within ten minutes at the default limits', async () => {
  const start = now
  for (let first = 0; first < PEOPLE; first += PER_MINUTE) {
    // A minute's arrivals come at once: their hashes queue behind the gate instead of failing.
    const arrivals = Array.from({ length: Math.min(PER_MINUTE, PEOPLE - first) }, (_, k) => first + k)
    await Promise.all(arrivals.map((i) => joinAndAnswer(i)))
    now += MINUTE
  }
  assert.ok(now - start <= 10 * MINUTE)
  const count = await t.json<{ result: number | string }>('/api/user_count/')
  assert.ok(Number(String(count.result).replace(/,/g, '')) >= PEOPLE)
})

test("from the same address, guessing one person's password stops after a handful of tries a minute; the others still sign in", async () => {
  const victim = person(0)
  const guess = (password: string) => json('POST', '/auth/login/', { username: victim.email, password })
  const refusedAt: number[] = []
  for (let attempt = 1; attempt <= 8; attempt++) {
    const response = await guess(`guess number ${attempt}`)
    if (response.statusCode === 429) refusedAt.push(attempt)
    else expect(response, 400, `guess ${attempt}`)
  }
  assert.deepEqual(refusedAt, [6, 7, 8], 'five tries a minute on one account from one address')
  const refused = await guess(victim.password)
  expect(refused, 429, 'even the right password waits for the next minute')
  assert.match(refused.json().detail, /^Request was throttled\. Expected available in \d+ seconds?\.$/)

  const neighbour = person(1)
  expect(await json('POST', '/auth/login/', { username: neighbour.email, password: neighbour.password }), 200, 'a neighbour signs in')

  now += MINUTE
  expect(await guess('guess in the next minute'), 400, 'a new minute, a new handful')
  expect(await json('POST', '/auth/login/', { username: victim.email, password: victim.password }), 200, 'the owner signs in')
})
