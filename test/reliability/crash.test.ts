import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import type pg from 'pg'
import { connectDatabase } from '../../src/db/connect.ts'
import { votersWithTokens, type Voter } from '../helpers/voters.ts'
import { dataDirFromTemplate, serverUrl, serviceDatabaseEnv, templateDatabaseName } from '../helpers/databases.ts'
import { runCommand } from '../cli/run-command.ts'
import { onServer, until, serveUntilReady } from './support.ts'

/**
 * The crash test: a real server under concurrent votes is killed with SIGKILL, several times. After each kill
 * `check` finds every stored figure exact, and the restarted server shows every vote it had acknowledged.
 * On PGlite the database is a data directory; with DATABASE_URL set, a PostgreSQL database of its own.
 */
const VOTERS = 6
const KILLS = 3
/** Acknowledged votes in each round before the kill, so that every kill lands under load. */
const ACKS_BEFORE_KILL = 40

type Answer = number | 'skip'

let env: Record<string, string>
let cleanup: () => Promise<void>
let voters: Voter[]
let questions: number[]
/** `voter:question` -> the answer the last acknowledged vote stored (seeded answers included). */
const acknowledged = new Map<string, Answer>()
/** `voter:question` -> answers sent but never answered: the kill may have come before or after their commit. */
const unanswered = new Map<string, Answer[]>()

before(async () => {
  const server = serverUrl()
  if (server) {
    const name = `civic_crash_${process.pid}`
    const drop = (client: pg.Client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await onServer(async (client) => {
      await drop(client)
      await client.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseName('tiny')}`)
    })
    env = serviceDatabaseEnv(name)
    cleanup = () => onServer(async (client) => void (await drop(client)))
  } else {
    // The seeded template, unpacked as the data directory the server will use.
    const dir = dataDirFromTemplate('tiny')
    env = { DATA_DIR: dir, DATABASE_URL: '' }
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true })
  }
  // Voters with tokens, and the likert questions open to them with what they have already answered.
  const handle = await connectDatabase({ databaseUrl: env.DATABASE_URL || null, dataDir: env.DATA_DIR ?? '' })
  try {
    voters = await votersWithTokens(handle.db, VOTERS, 'crash test')
    const open = await handle.db
      .selectFrom('questions')
      .select('id')
      .where('subtype', '=', 'likert')
      .where('publish', '=', true)
      .where((eb) => eb.or([eb('start_at', 'is', null), eb('start_at', '<=', new Date())]))
      .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', new Date(Date.now() + 3_600_000))]))
      .orderBy('id')
      .limit(12)
      .execute()
    questions = open.map((q) => q.id)
    const seeded = await handle.db
      .selectFrom('question_votes')
      .select(['user_id', 'question_id', 'value', 'skipped'])
      .where(
        'user_id',
        'in',
        voters.map((v) => v.id),
      )
      .where('question_id', 'in', questions)
      .execute()
    for (const vote of seeded) acknowledged.set(`${vote.user_id}:${vote.question_id}`, vote.skipped ? 'skip' : vote.value!)
  } finally {
    await handle.close()
  }
})
after(() => cleanup?.())

const startServer = () => serveUntilReady(env)

/** One client per voter, each sending its next vote when the last one is answered, until stopped. */
function load(base: string) {
  let running = true
  let acks = 0
  const refusals: string[] = []
  const client = async (voter: Voter, index: number) => {
    for (let n = index; running; n++) {
      const question = questions[(n * 7 + index) % questions.length]
      const answer: Answer = n % 6 === 5 ? 'skip' : 1 + ((n * 3 + index) % 5)
      const key = `${voter.id}:${question}`
      const body = answer === 'skip' ? { object_id: question, skipped: true } : { object_id: question, value: answer }
      let response: Response
      try {
        response = await fetch(`${base}/api/question_votes/`, {
          method: 'POST',
          headers: { authorization: `Token ${voter.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      } catch {
        unanswered.set(key, [...(unanswered.get(key) ?? []), answer])
        return // the server is gone
      }
      const text = await response.text()
      if (response.status !== 200 && response.status !== 201) {
        refusals.push(`${response.status} ${text}`)
        unanswered.set(key, [...(unanswered.get(key) ?? []), answer])
        continue
      }
      const vote = JSON.parse(text) as { value: number | null; skipped: boolean }
      assert.deepEqual(vote.skipped ? 'skip' : vote.value, answer, 'the acknowledgement shows the vote sent')
      acknowledged.set(key, answer)
      unanswered.delete(key)
      acks++
    }
  }
  const clients = Promise.all(voters.map(client))
  return {
    acks: () => acks,
    refusals,
    async stop() {
      running = false
      await clients
    },
  }
}

/** Every voter's current answers on the test's questions, read as the voter through the API. */
async function storedAnswers(base: string): Promise<Map<string, Answer>> {
  const stored = new Map<string, Answer>()
  for (const voter of voters) {
    const response = await fetch(`${base}/api/question_votes/?user=${voter.id}&page_size=100`, {
      headers: { authorization: `Token ${voter.token}` },
    })
    assert.equal(response.status, 200)
    const page = (await response.json()) as { count: number; results: Array<{ object_id: number; value: number | null; skipped: boolean }> }
    assert.ok(page.count <= 100, 'one page holds every answer of the voter')
    for (const vote of page.results) {
      if (questions.includes(vote.object_id)) stored.set(`${voter.id}:${vote.object_id}`, vote.skipped ? 'skip' : vote.value!)
    }
  }
  return stored
}

test(`votes under load, the server killed with SIGKILL ${KILLS} times: every acknowledged vote survives and check is clean`, async (t) => {
  assert.equal(voters.length, VOTERS)
  assert.ok(questions.length >= 4, `likert questions open to answers: ${questions}`)
  let { server, base } = await startServer()
  let totalAcks = 0
  try {
    for (let kill = 1; kill <= KILLS; kill++) {
      const traffic = load(base)
      await until(
        () => traffic.acks() >= ACKS_BEFORE_KILL,
        `${ACKS_BEFORE_KILL} votes acknowledged before kill ${kill}\n${server.output()}`,
        60_000,
      )
      server.child.kill('SIGKILL')
      await server.exited
      await traffic.stop()
      assert.deepEqual(traffic.refusals, [], 'every vote before the kill was taken')
      totalAcks += traffic.acks()
      t.diagnostic(`kill ${kill}: ${traffic.acks()} votes acknowledged, ${[...unanswered.values()].flat().length} in flight`)

      // The command line's check, run in this process: the server it checks after is the process killed.
      const check = await runCommand(['check'], env)
      assert.equal(check.code, 0, `check after kill ${kill}:\n${check.stdout}${check.stderr}`)

      ;({ server, base } = await startServer())
      const stored = await storedAnswers(base)
      for (const [key, answer] of acknowledged) {
        const allowed = [answer, ...(unanswered.get(key) ?? [])]
        assert.ok(
          allowed.includes(stored.get(key)!),
          `after kill ${kill}, voter:question ${key} holds ${stored.get(key)}, acknowledged ${answer}`,
        )
      }
      for (const [key, answer] of stored) {
        assert.ok(
          acknowledged.has(key) || unanswered.get(key)?.includes(answer),
          `after kill ${kill}, ${key} holds ${answer}, a vote nobody sent`,
        )
        // What the restarted server shows is the state from here on, whichever in-flight vote it was.
        acknowledged.set(key, answer)
      }
      unanswered.clear()
    }
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
  }
  assert.ok(totalAcks >= KILLS * ACKS_BEFORE_KILL)
})
