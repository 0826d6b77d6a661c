import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { ID_LIST_FORMAT } from '../../src/core/integers.ts'
import { API_NAMES } from '../../src/modules/root/root.routes.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { inlineRefs } from '../helpers/openapi.ts'
import { insertUser } from '../helpers/fixtures.ts'

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> }
type Document = { paths: Record<string, Record<string, Operation>> }

let t: TestApp
let doc: Document
before(async () => {
  t = await createTestApp('tiny')
  doc = inlineRefs(await t.json('/api/schema/'))
})
after(() => t.close())

/** What some resources need to answer with content rather than a 400 naming the missing parameter. */
async function sampleQueries(): Promise<Record<string, string>> {
  const users = (await t.json('/api/users/?page_size=3')).results as { id: number }[]
  const question = (await t.json('/api/questions/?page_size=1')).results[0] as { id: number }
  const [a, b, c] = users.map((user) => user.id)
  const questions = (await t.json('/api/questions/?page_size=2')).results as { id: number }[]
  const collection = (await t.json('/api/question_collections/?page_size=1')).results[0] as { id: number }
  const area = await t.database.db.selectFrom('areas').select('id').orderBy('id').executeTakeFirstOrThrow()
  return {
    question_collection_users: `?parent=${collection.id}`,
    question_demographics: `?question=${question.id}`,
    question_geographics: `?question=${question.id}`,
    question_weighted_demographics: `?question=${question.id}`,
    compare_users: `?usera=${a}&userb=${b}`,
    compare_users_quick: `?usera=${a}&userb=${b}`,
    compare_n_users_quick: `?usera=${a}&users=${b},${c}`,
    compare_questions: `?questiona=${questions[0].id}&questionb=${questions[1].id}`,
    simple_politicians_geos: `?geo=${area.id}`,
    survey_results: `?collection=${collection.id}`,
    search: '?search=question',
  }
}

test('every URL the API root lists answers GET with a real answer that matches its documented schema', async () => {
  const validator = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(validator)
  validator.addFormat(ID_LIST_FORMAT, true)
  // Staff, signed in: the one caller every GET of the index answers (some lists are theirs alone).
  const staff = await insertUser(t.database.db, { username: 'root-walker', is_staff: true })
  const headers = { authorization: `Token ${await t.tokenFor(staff.id)}` }
  const index = (await t.json('/api/')) as Record<string, string>

  const queries = await sampleQueries()
  const failures: string[] = []
  for (const [name, url] of Object.entries(index)) {
    const path = new URL(url).pathname
    const response = await t.get(`${path}${queries[name] ?? ''}`, headers)
    if (response.statusCode !== 200) {
      failures.push(`${name}: GET ${path}${queries[name] ?? ''} answered ${response.statusCode} ${response.body.slice(0, 200)}`)
      continue
    }
    if (!/^application\/json/.test(String(response.headers['content-type']))) {
      failures.push(`${name}: ${response.headers['content-type']}`)
      continue
    }
    const schema = doc.paths[path]?.get?.responses['200']?.content?.['application/json']?.schema
    if (!schema) {
      failures.push(`${name}: ${path} documents no 200 JSON answer`)
      continue
    }
    const validate = validator.compile(schema)
    if (!validate(response.json())) failures.push(`${name}: ${JSON.stringify(validate.errors?.slice(0, 2))}`)
  }
  assert.deepEqual(failures, [])
  assert.deepEqual(Object.keys(index), [...API_NAMES], 'the root lists every name of the index, in order')
})
