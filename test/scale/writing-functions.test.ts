import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { databaseFromTemplate } from '../helpers/databases.ts'
import type { DatabaseHandle } from '../../src/db/connect.ts'
import { loadStatementKinds, type CatalogueReader, type StatementKinds } from '../../src/db/writing-functions.ts'

/**
 * The read router sends a statement that calls a function to the primary when the function is VOLATILE
 * (src/db/writing-functions.ts). Here every function of the migrated database is read from pg_proc with its body,
 * and the router's decision is checked for each: whatever writes, by its mark or by what its body does, is not a
 * plain read. Runs on either database: it needs the catalogue, not a replica.
 */

interface LiveFunction {
  name: string
  volatile: boolean
  trigger: boolean
  body: string
}

/** Functions of the public schema, as migrated. */
async function liveFunctions(reader: CatalogueReader): Promise<LiveFunction[]> {
  const { rows } = await reader.query<LiveFunction>(`
    SELECT p.proname AS name, p.provolatile = 'v' AS volatile, p.prorettype = 'trigger'::regtype AS trigger, p.prosrc AS body
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public'
    ORDER BY p.proname`)
  return rows
}

/** A body's own writes, locks, notices and settings, its comments left out. */
const WRITES_ITSELF =
  /\b(insert|update|delete|merge|truncate|notify|nextval|setval|set_config|pg_notify|pg_advisory\w*|pg_try_advisory\w*)\b|\bfor\s+(no\s+key\s+)?(update|share|key\s+share)\b/i
const withoutComments = (body: string) => body.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '')
const callOf = (name: string) => new RegExp(`(?<![\\w$])"?${name}"?\\s*\\(`, 'i')

/** The functions that write: VOLATILE ones, those whose body writes, and those calling one of these, to any depth. */
function writingFunctions(functions: LiveFunction[]): Map<string, string> {
  const why = new Map<string, string>()
  for (const f of functions) {
    if (f.volatile) why.set(f.name, 'VOLATILE')
    const own = WRITES_ITSELF.exec(withoutComments(f.body))
    if (own) why.set(f.name, `its body: ${own[0]}`)
  }
  for (let grew = true; grew;) {
    grew = false
    for (const f of functions) {
      if (why.has(f.name)) continue
      const callee = [...why.keys()].find((name) => callOf(name).test(withoutComments(f.body)))
      if (callee) {
        why.set(f.name, `calls ${callee}`)
        grew = true
      }
    }
  }
  return why
}

/** Statements calling the function in each way the service's SQL might. */
const callsOf = (name: string) => [
  `SELECT * FROM ${name}(1, 2)`,
  `select r.outcome, (r.vote).* from ${name}($1::integer) as r`,
  `SELECT ${name}(m.q) FROM (VALUES (1)) AS m(q)`,
  `select "${name}"($1)`,
  `SELECT public.${name} (1)`,
  `WITH x AS (SELECT 1) SELECT count(*) FROM x, LATERAL ${name}(x.a)`,
]

/** Functions that write yet some call of them would be sent to a replica, each with why it writes. */
function misrouted(functions: LiveFunction[], kinds: StatementKinds): string[] {
  return [...writingFunctions(functions)]
    .filter(([name]) => callsOf(name).some((statement) => kinds.isPlainRead(statement)))
    .map(([name, why]) => `${name} (${why})`)
}

let database: DatabaseHandle
let reader: CatalogueReader

before(async () => {
  database = await databaseFromTemplate('empty')
  reader = { query: async <Row>(text: string) => ({ rows: (await sql.raw<Row>(text).execute(database.db)).rows }) }
})

const run = (statement: string) => sql.raw(statement).execute(database.db)

after(async () => {
  await database?.close()
})

test('every function of the migrated database that writes is routed to the primary', async () => {
  const functions = await liveFunctions(reader)
  const kinds = await loadStatementKinds(reader)
  const writing = writingFunctions(functions)
  console.error(`# ${functions.length} functions, ${writing.size} of them write; the router knows ${kinds.writingFunctions.length}`)
  assert.ok(writing.has('cast_likert') && writing.has('withdraw_answer'), 'the one-call answers are found to write')
  assert.deepEqual(misrouted(functions, kinds), [])
})

test('a function that writes is VOLATILE: none marked STABLE or IMMUTABLE writes, or calls one that does', async () => {
  const functions = await liveFunctions(reader)
  const writing = writingFunctions(functions)
  const marked = functions.filter((f) => !f.volatile && writing.has(f.name)).map((f) => `${f.name} (${writing.get(f.name)})`)
  assert.deepEqual(marked, [])
})

test('the functions that only read are routed as reads, so replicas take them', async () => {
  const functions = await liveFunctions(reader)
  const kinds = await loadStatementKinds(reader)
  const writing = writingFunctions(functions)
  const reads = functions.filter((f) => !writing.has(f.name))
  assert.ok(
    reads.some((f) => f.name === 'published_corrections'),
    'the published figures are read-only',
  )
  const sentToPrimary = reads.filter((f) => callsOf(f.name).some((statement) => !kinds.isPlainRead(statement))).map((f) => f.name)
  assert.deepEqual(sentToPrimary, [])
})

test('a function added or replaced by a migration is routed by its mark, with no list to edit', async () => {
  await run(`CREATE FUNCTION record_probe(p integer) RETURNS integer LANGUAGE sql
    AS $$ INSERT INTO service_secrets (name, value) VALUES ('probe ' || p, 'x') RETURNING 1 $$`)
  await run(`CREATE OR REPLACE FUNCTION withheld_answer_count(p_question integer, p_k integer) RETURNS integer
    LANGUAGE plpgsql AS $$ BEGIN PERFORM record_probe(p_question); RETURN 0; END $$`)
  const functions = await liveFunctions(reader)
  const kinds = await loadStatementKinds(reader)
  for (const name of ['record_probe', 'withheld_answer_count']) {
    assert.ok(kinds.writingFunctions.includes(name), `${name} is VOLATILE (the default) and taken to write`)
    assert.ok(!kinds.isPlainRead(`SELECT * FROM ${name}(1)`))
  }
  assert.deepEqual(misrouted(functions, kinds), [])

  // A read-only mark on a function that writes through another is what the router cannot see: the checks say so.
  await run(`CREATE OR REPLACE FUNCTION withheld_answer_count(p_question integer, p_k integer) RETURNS integer
    LANGUAGE plpgsql STABLE AS $$ BEGIN PERFORM record_probe(p_question); RETURN 0; END $$`)
  const marked = await liveFunctions(reader)
  assert.deepEqual(misrouted(marked, await loadStatementKinds(reader)), ['withheld_answer_count (calls record_probe)'])
})
