/**
 * The fuzz harness must catch what it is there to catch: a route that writes a row and then refuses the
 * request, and a route that crashes on one class of input; and it must pass a route that does neither.
 * Three such routes are added beside the real ones, and fuzzed like them.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Type } from 'typebox'
import { ValidationFailed } from '../../src/core/errors.ts'
import { createFuzzTarget, type FuzzTarget } from './harness.ts'

let target: FuzzTarget
before(async () => {
  target = await createFuzzTarget((app) => {
    app.post('/oracle/leaky/', {
      schema: { body: Type.Object({ text: Type.Optional(Type.String()) }) },
      config: { access: 'anyone' },
      handler: async (request) => {
        const text = (request.body as { text?: string }).text ?? ''
        // The defect: the row is written before the check that refuses the request.
        await app.db
          .insertInto('tags')
          .values({ text: `oracle ${Date.now()} ${Math.random()}`, slug: `oracle-${Date.now()}-${Math.random()}` })
          .execute()
        if (text.length < 3) throw ValidationFailed({ text: ['Too short.'] })
        return {}
      },
    })
    app.get('/oracle/crash/', {
      schema: { querystring: Type.Object({ n: Type.Optional(Type.String()) }) },
      config: { access: 'anyone' },
      handler: async (request) => {
        const n = (request.query as { n?: string }).n
        // The defect: a lax number reader whose result reaches a check that throws.
        if (n !== undefined && !Number.isFinite(Number(n))) throw new RangeError(`not a finite number: ${n}`)
        return {}
      },
    })
    app.get('/oracle/sound/', {
      schema: { querystring: Type.Object({ n: Type.Optional(Type.Integer()) }) },
      config: { access: 'anyone' },
      handler: async () => ({}),
    })
  })
})
after(() => target?.close())

const route = (method: string, url: string) => {
  const found = target.routes.find((candidate) => candidate.method === method && candidate.url === url)
  assert.ok(found, `${method} ${url} was not collected`)
  return found
}

test('a rejected request that wrote a row is caught, naming the table', async () => {
  const findings = await target.fuzzRoute(route('POST', '/oracle/leaky/'), { seed: 1, numRuns: 200 })
  assert.equal(findings.length, 1)
  const [problem] = findings[0].failure.problems
  assert.equal(problem.key, 'rejected but changed INSERT tags')
  assert.match(problem.text, /rejected with 400(, 400)* but changed rows: [1-3]× INSERT tags$/)
})

test('a 500 is caught with the server’s error, and shrunk to a request that still shows it', async () => {
  const findings = await target.fuzzRoute(route('GET', '/oracle/crash/'), { seed: 1, numRuns: 300 })
  assert.equal(findings.length, 1)
  const { problems, request } = findings[0].failure
  assert.ok(
    problems.some((problem) => problem.key.startsWith('500 RangeError: not a finite number')),
    problems.map((p) => p.key).join('; '),
  )
  assert.match(request.url, /[?&]n=/)
  assert.ok(findings[0].path, 'the counterexample can be replayed')
})

test('a route that refuses bad input cleanly passes', async () => {
  const findings = await target.fuzzRoute(route('GET', '/oracle/sound/'), { seed: 1, numRuns: 200 })
  assert.deepEqual(
    findings.map((finding) => finding.failure.message),
    [],
  )
  assert.ok(target.stats.cases >= 200)
})
