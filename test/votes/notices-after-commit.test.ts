import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { serverUrl } from '../helpers/databases.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { assertStoredEqualsRecomputed, likertQuestion, mcqQuestion } from './support.ts'
import { DATA_CHANGED_CHANNEL, QUESTION_FIGURES_CHANNEL, type DataChanges } from '../../src/db/data-changes.ts'
import { noticesAfterCommit } from '../../src/db/notices-after-commit.ts'

/**
 * Answers leave their change notices to the answering process, which sends them after the commit (migration 023,
 * src/db/notices-after-commit.ts): every question answered is announced, several answers' notices go together, and
 * a write that is not an answer still notifies from its triggers.
 */

let t: TestApp
let listening: DataChanges
const heard: { channel: string; payload: string }[] = []

before(async () => {
  t = await createTestApp('tiny')
  listening = await t.database.listenForChanges(
    {
      onChange: (channel, payload) => {
        if (channel !== undefined) heard.push({ channel, payload: payload ?? '' })
      },
      onLost: () => {},
    },
    [DATA_CHANGED_CHANNEL, QUESTION_FIGURES_CHANNEL],
  )
})
after(async () => {
  await listening.close()
  await t.close()
})

/** Waits until the process has sent what it holds and the listener has had time to hear it. */
async function settle(): Promise<void> {
  await noticesAfterCommit(t.database.db).settled()
  const deadline = Date.now() + 5_000
  let count = -1
  while (count !== heard.length && Date.now() < deadline) {
    count = heard.length
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

test('answers at once: each question is announced after the commit, several answers in one notice', async () => {
  const db = t.database.db
  const author = await insertUser(db)
  const likert = (await likertQuestion(db, author.id)).id
  const mcq = await mcqQuestion(db, author.id, 3)
  const voters = await Promise.all(Array.from({ length: 24 }, () => insertUser(db)))
  const tokens = await Promise.all(voters.map((voter) => t.tokenFor(voter.id)))
  await settle()
  heard.length = 0

  const answers = await Promise.all(
    tokens.map((token, i) =>
      i % 2 === 0
        ? t.send('POST', '/api/question_votes/', { object_id: likert, value: 1 + (i % 5) }, token)
        : t.send('POST', '/api/question_choice_votes/', { object_id: mcq.choiceIds[i % 3], value: 5 }, token),
    ),
  )
  assert.deepEqual(
    answers.map((answer) => answer.statusCode),
    tokens.map(() => 201),
  )
  await settle()
  const figures = new Set(heard.filter((notice) => notice.channel === QUESTION_FIGURES_CHANNEL).map((notice) => notice.payload))
  assert.deepEqual([...figures].sort(), [String(likert), String(mcq.id)].sort(), 'both questions are announced')
  const changes = heard.filter((notice) => notice.channel === DATA_CHANGED_CHANNEL).length
  assert.ok(changes >= 1, 'the data change is announced')
  // PostgreSQL folds a transaction's identical notices: each send is one notice at most per channel and payload.
  // On the server the answers overlap and share sends; PGlite runs them one after another, one send each.
  if (serverUrl()) assert.ok(changes < answers.length, `${changes} data notices for ${answers.length} answers: sends are shared`)
  else assert.ok(changes <= answers.length, `${changes} data notices for ${answers.length} answers`)

  // What the API shows afterwards is what was sent: 12 ratings on the likert question.
  const question = await t.json(`/api/questions/${likert}/`)
  assert.equal(question.direct_vote_count, 12)
  await assertStoredEqualsRecomputed(db, 'after answers at once')
})

test('a write that is not an answer still notifies from its triggers', async () => {
  const db = t.database.db
  const author = await insertUser(db)
  heard.length = 0
  const question = await likertQuestion(db, author.id)
  await settle()
  assert.ok(
    heard.some((notice) => notice.channel === DATA_CHANGED_CHANNEL),
    'a question written outside the service is announced by its trigger',
  )
  heard.length = 0
  await db.updateTable('questions').set({ publish: false }).where('id', '=', question.id).execute()
  await settle()
  assert.ok(heard.some((notice) => notice.channel === QUESTION_FIGURES_CHANNEL && notice.payload === String(question.id)))
})
