import { STATUS_CODES } from 'node:http'

/**
 * The routes declare their schemas inline, so the document repeats each shared shape (a question, a user summary)
 * wherever it appears: about 1.9 MB, which a browser takes tens of seconds to lay out. Every object schema of some
 * size found more than once moves to `components.schemas`, innermost first, and its places refer to it.
 */

/** Below this many characters of JSON a schema stays inline: a reference would save little and read worse. */
const MIN_SHARED_LENGTH = 150

type Json = Record<string, unknown>

interface Place {
  holder: Json | unknown[]
  key: string | number
  name: string
}

const isObjectSchema = (node: unknown): node is Json =>
  node !== null && typeof node === 'object' && !Array.isArray(node) && (node as Json).type === 'object' && 'properties' in node

/** `base`, or `base2`, `base3`… : the first not taken yet, now taken. */
function freeName(taken: Set<string>, base: string): string {
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`
  taken.add(name)
  return name
}

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('')

/**
 * Hoists the responses found in more than one operation into `document.components.responses` (named by status),
 * then the repeated object schemas into `document.components.schemas`, in place.
 */
export function hoistSharedSchemas(document: { paths?: Json; components?: Json }): void {
  if (!document.paths) return
  const components = (document.components ??= {})
  hoistSharedResponses(document.paths, (components.responses ??= {}) as Json)
  const schemas = (components.schemas ??= {}) as Json
  const taken = new Set(Object.keys(schemas))
  for (;;) {
    const found = repeatedSchemas(document.paths, schemas)
    if (found.size === 0) return
    for (const places of found.values()) {
      const name = freeName(taken, places[0].name)
      schemas[name] = places[0].node
      for (const place of places) (place.holder as Json)[place.key] = { $ref: `#/components/schemas/${name}` }
    }
  }
}

/** Identical responses (an error's description and body) kept once, each named by its status's reason phrase. */
function hoistSharedResponses(paths: Json, shared: Json): void {
  const byJson = new Map<string, { code: string; places: Json[] }>()
  for (const item of Object.values(paths) as Json[])
    for (const operation of Object.values(item ?? {}) as Json[]) {
      const responses = operation?.responses as Json | undefined
      if (!responses || typeof responses !== 'object') continue
      for (const [code, response] of Object.entries(responses)) {
        const json = JSON.stringify(response)
        const entry = byJson.get(json) ?? byJson.set(json, { code, places: [] }).get(json)!
        entry.places.push(responses)
      }
    }
  const taken = new Set(Object.keys(shared))
  for (const [json, { code, places }] of byJson) {
    if (places.length < 2) continue
    const name = freeName(taken, pascal(STATUS_CODES[Number(code)] ?? `Status ${code}`))
    shared[name] = JSON.parse(json) as unknown
    for (const responses of places) responses[code] = { $ref: `#/components/responses/${name}` }
  }
}

interface Candidate extends Place {
  json: string
  node: Json
  /** The object schemas it sits in. */
  within: Json[]
}

/**
 * The object schemas found twice or more that hold no other such schema (those go first), by their JSON, each with
 * the places it is found and a name from its first place: the property that holds it, or the operation's tag.
 */
function repeatedSchemas(paths: Json, schemas: Json): Map<string, Candidate[]> {
  const found: Candidate[] = []
  const within: Json[] = []
  const walk = (node: unknown, holder: Place['holder'] | null, key: Place['key'], parentKey: unknown, context: string): void => {
    if (node === null || typeof node !== 'object') return
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, node, i, key, context))
    const object = node as Json
    const tag =
      Array.isArray(object.tags) && typeof object.tags[0] === 'string'
        ? object.tags[0]
        : parentKey === 'responses' && Number(key) >= 400
          ? 'Error'
          : context
    const schema = isObjectSchema(object)
    if (schema) within.push(object)
    for (const [name, value] of Object.entries(object)) walk(value, object, name, key, tag)
    if (schema) within.pop()
    if (holder === null || !schema) return
    const json = JSON.stringify(object)
    if (json.length < MIN_SHARED_LENGTH) return
    const property = parentKey === 'properties' && typeof key === 'string' ? (/^[A-Za-z]/.test(key) ? key : `${context} ${key}`) : context
    found.push({ holder, key, name: pascal(property) || 'Schema', json, node: object, within: [...within] })
  }
  walk(paths, null, '', null, 'Schema')
  for (const value of Object.values(schemas)) walk(value, null, '', null, 'Schema')
  const count = new Map<string, number>()
  for (const { json } of found) count.set(json, (count.get(json) ?? 0) + 1)
  // Keep the innermost: a schema that holds another repeated one waits for the next round.
  const holdsRepeated = new Set<Json>()
  for (const candidate of found) if (count.get(candidate.json)! > 1) for (const outer of candidate.within) holdsRepeated.add(outer)
  const places = new Map<string, Candidate[]>()
  for (const candidate of found) {
    if (count.get(candidate.json)! < 2 || holdsRepeated.has(candidate.node)) continue
    const list = places.get(candidate.json) ?? places.set(candidate.json, []).get(candidate.json)!
    list.push(candidate)
  }
  return places
}
