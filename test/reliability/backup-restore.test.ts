import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { databaseUrlFor, serverUrl, serviceDatabaseEnv } from '../helpers/databases.ts'
import { jsonClient } from '../helpers/json-client.ts'
import { cli, freshDatabase, onServer, serveUntilReady, until } from './support.ts'

/**
 * A backup of a live database (docs/operations.md, Backups and restores): `pg_dump -Fc` while people answer through
 * a serving process, `pg_restore` into a new database, `civic-survey check` clean there, and a process serving the
 * restored answers: each one an answer a client sent, none made up, none counted twice.
 */
const skip = serverUrl() ? false : 'pg_dump and pg_restore back up a PostgreSQL server (the embedded database: stop, copy DATA_DIR, start)'

const tool = (name: string) => (spawnSync(name, ['--version']).status === 0 ? name : path.join('/usr/lib/postgresql/15/bin', name))

test(
  'pg_dump of a live database restores to a database whose figures check clean and whose answers were all sent',
  { skip, timeout: 300_000 },
  async () => {
    const live = await freshDatabase()
    const restoredName = `${live.name}_restored`
    const restoredUrl = databaseUrlFor(serverUrl()!, restoredName)
    const dump = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'civic-backup-')), 'civic.dump')
    const { server, base } = await serveUntilReady(live.service)
    let restoredServer: Awaited<ReturnType<typeof serveUntilReady>>['server'] | null = null
    try {
      const call = jsonClient(base)
      const people: string[] = []
      for (let i = 0; i < 4; i++) {
        const username = `backer${i}`
        const made = await call('POST', '/auth/register/', { username, email: `${username}@example.org`, password: 'harbour-lantern-77' })
        assert.equal(made.status, 201, JSON.stringify(made.json))
        people.push(made.json.auth_token)
      }
      const questions: number[] = []
      for (let i = 0; i < 40; i++) {
        const asked = await call('POST', '/api/questions/', { question: `Should the library open on holiday ${i}?` }, people[0])
        assert.equal(asked.status, 201, JSON.stringify(asked.json))
        questions.push(asked.json.id)
      }

      // Answers arrive all the while: each acknowledged one is recorded, and so is each one sent.
      const sent = new Map<string, number>()
      const acknowledged = new Map<number, { question: number; value: number }>()
      let stopping = false
      const answerers = people.map(async (token, p) => {
        for (const question of questions) {
          if (stopping) return
          const value = ((question + p) % 5) + 1
          sent.set(`${p}:${question}`, value)
          const vote = await call('POST', '/api/question_votes/', { value, object_id: question, private: false }, token)
          assert.equal(vote.status, 201, JSON.stringify(vote.json))
          acknowledged.set(vote.json.id, { question, value })
        }
      })
      await until(() => acknowledged.size >= 12, 'answers arrive before the backup')
      const dumped = spawnSync(tool('pg_dump'), ['-Fc', '-f', dump, live.url], { encoding: 'utf8' })
      const duringDump = acknowledged.size
      await until(
        () => acknowledged.size >= duringDump + 8 || acknowledged.size === people.length * questions.length,
        'answers go on after it',
      )
      stopping = true
      await Promise.all(answerers)
      assert.equal(dumped.status, 0, dumped.stderr)

      await onServer(async (client) => void (await client.query(`CREATE DATABASE ${restoredName}`)))
      const restored = spawnSync(tool('pg_restore'), ['--no-owner', '-j', '2', '-d', restoredUrl, dump], { encoding: 'utf8' })
      assert.equal(restored.status, 0, restored.stderr)
      const migrated = cli(['migrate'], { DATABASE_URL: restoredUrl })
      assert.equal(migrated.code, 0, migrated.stderr)
      assert.match(migrated.stdout + migrated.stderr, /up to date/)
      const checked = cli(['check'], { DATABASE_URL: restoredUrl })
      assert.equal(checked.code, 0, `check on the restored database:\n${checked.stdout}\n${checked.stderr}`)

      // A consistent moment: answers acknowledged before the dump began are there, and nothing that was not sent.
      const client = new pg.Client({ connectionString: restoredUrl })
      await client.connect()
      const { rows } = await client
        .query<{ id: number; question_id: number; value: number }>(
          'SELECT id, question_id, value FROM question_votes WHERE question_id = ANY($1) ORDER BY id',
          [questions],
        )
        .finally(() => client.end())
      assert.ok(rows.length >= 12, `the answers from before the dump are restored: ${rows.length}`)
      assert.ok(rows.length <= sent.size, `no more answers than were sent: ${rows.length} of ${sent.size}`)
      for (const row of rows) {
        const known = acknowledged.get(row.id)
        assert.deepEqual(known && [known.question, known.value], [row.question_id, row.value], `answer ${row.id} was sent as restored`)
      }

      // The restored database serves: the answers of a question, as restored.
      const restoredService = serviceDatabaseEnv(restoredName)
      const again = await serveUntilReady(restoredService)
      restoredServer = again.server
      const question = rows[0].question_id
      const listed = await jsonClient(again.base)('GET', `/api/question_votes/?question=${question}&page_size=100`)
      assert.equal(listed.status, 200)
      assert.deepEqual(
        listed.json.results.map((vote: { id: number }) => vote.id).sort((a: number, b: number) => a - b),
        rows.filter((row) => row.question_id === question).map((row) => row.id),
      )
      const detail = await jsonClient(again.base)('GET', `/api/questions/${question}/`)
      assert.equal(detail.json.direct_vote_count, rows.filter((row) => row.question_id === question).length)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
      if (restoredServer) {
        restoredServer.child.kill('SIGTERM')
        await restoredServer.exited
      }
      await onServer(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${restoredName} WITH (FORCE)`)))
      await live.drop()
      fs.rmSync(path.dirname(dump), { recursive: true, force: true })
    }
  },
)
