import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { createTestApp } from '../helpers/app.ts'

/**
 * Metrics cost a request nothing while they are off (docs/operations.md, Metrics): without METRICS_PORT no route
 * carries the hook that times every request nor the ones that count answer refusals; with it, they are there.
 */

/** Each route (`METHOD /path`), with the names of its hooks by kind (onResponse, onError…), as Fastify prints them. */
function hooksByRoute(app: FastifyInstance): Map<string, Map<string, string[]>> {
  const routes = new Map<string, Map<string, string[]>>()
  const path: string[] = []
  let current: Map<string, string[]>[] = []
  for (const line of app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n')) {
    const indent = line.search(/[^│├└─\s]/)
    if (indent < 0) continue
    const text = line.slice(indent)
    // • (onResponse) ["anonymous()","abandon()"]
    const hooks = /^• \((\w+)\) (.*)$/.exec(text)
    if (hooks) {
      const names = [...hooks[2].matchAll(/"([^"(]*)\(\)"/g)].map((m) => m[1])
      for (const route of current) route.set(hooks[1], names)
      continue
    }
    const node = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(text)!
    const depth = indent / 4
    path.length = depth
    path[depth] = node[1]
    current = (node[2] ?? '')
      .split(', ')
      .filter(Boolean)
      .map((method) => {
        const route = new Map<string, string[]>()
        routes.set(`${method} ${path.join('')}`, route)
        return route
      })
  }
  return routes
}

/** The routes that cast answers (each kind also under its `_light` name). */
const ANSWER_ROUTES = ['question_votes', 'question_votes_light', 'question_choice_votes', 'question_choice_votes_light'].map(
  (name) => `POST /api/${name}/`,
)
const REFUSAL_HOOKS = { onError: 'noteAnswerRefusal', onResponse: 'countAnswerRefusal' }

test('without METRICS_PORT no metrics hook is registered; with it, every request is timed and answer refusals counted', async () => {
  const off = await createTestApp('tiny')
  try {
    await off.app.ready()
    const plain = hooksByRoute(off.app)
    for (const route of [...ANSWER_ROUTES, 'GET /api/questions/']) assert.ok(plain.has(route), `${route} is listed`)
    for (const [route, hooks] of plain)
      for (const [kind, name] of Object.entries(REFUSAL_HOOKS))
        assert.ok(!hooks.get(kind)?.includes(name), `${route} carries ${name} without METRICS_PORT`)

    const on = await createTestApp('tiny', { METRICS_PORT: '9464' }, undefined, { database: off.database })
    try {
      await on.app.ready()
      const measured = hooksByRoute(on.app)
      assert.deepEqual([...measured.keys()].sort(), [...plain.keys()].sort())
      // With metrics, each route has one more onResponse hook (its timing) and the answer routes the two refusal
      // hooks; nothing else differs. So without them, no route is timed.
      for (const [route, hooks] of measured) {
        const answers = ANSWER_ROUTES.includes(route)
        const kinds = new Set([...hooks.keys(), ...plain.get(route)!.keys()])
        for (const kind of kinds) {
          const before = plain.get(route)!.get(kind) ?? []
          const after = hooks.get(kind) ?? []
          const refusal = answers ? REFUSAL_HOOKS[kind as keyof typeof REFUSAL_HOOKS] : undefined
          const extra = (kind === 'onResponse' ? 1 : 0) + (refusal ? 1 : 0)
          assert.equal(after.length, before.length + extra, `${route} ${kind}: ${after} against ${before}`)
          if (refusal) assert.ok(after.includes(refusal), `${route} ${kind} has ${refusal}`)
        }
      }
      // Building the app opens no port (serve does, src/server.ts): the public routes still have no /metrics.
      assert.equal((await on.get('/metrics')).statusCode, 404)
    } finally {
      await on.close()
    }
  } finally {
    await off.close()
  }
})
