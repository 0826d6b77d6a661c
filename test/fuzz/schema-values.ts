import fc from 'fast-check'
import { malformedJson, malformedText } from './catalogue.ts'
import { mark, type Node } from './nodes.ts'
import type { JsonSchema } from './routes.ts'

/** Real values of the seeded database, so that valid requests reach past the lookups to the writes. */
export interface Pools {
  /** Ids that exist somewhere (any table of the tiny seed). */
  ids: number[]
  usernames: string[]
  emails: string[]
  /** A password the fuzz's own users really have, so that password checks sometimes pass. */
  password: string
  /** Push registration ids the fuzz itself registers and then addresses. */
  deviceIds: string[]
}

const INT32 = 2_147_483_647

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type
  return typeof schema.type === 'string' ? [schema.type] : []
}

/** A value the schema accepts, leaning towards real ids and names, for a property called `name`. */
export function validValue(schema: JsonSchema | undefined, name: string, pools: Pools, depth = 0): fc.Arbitrary<Node> {
  if (!schema || depth > 4) return fc.constant('x')
  const branches = schema.anyOf ?? schema.oneOf
  if (branches?.length) return fc.oneof(...branches.map((branch) => validValue(branch, name, pools, depth + 1)))
  if ('const' in schema) return fc.constant(schema.const as Node)
  if (schema.enum?.length) return fc.constantFrom(...(schema.enum as Node[]))
  const types = typesOf(schema)
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...schema, type }, name, pools, depth + 1)))
  switch (types[0]) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return integerValue(schema, pools)
    case 'number': {
      const min = schema.minimum ?? -1e6
      const max = schema.maximum ?? 1e6
      return fc.oneof(
        fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
        fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
      )
    }
    case 'string':
      return stringValue(schema, name, pools)
    case 'array': {
      const maxLength = Math.min(schema.maxItems ?? 4, 4)
      const minLength = Math.min(schema.minItems ?? 0, maxLength)
      return fc.array(validValue(schema.items, name, pools, depth + 1), { minLength, maxLength }) as fc.Arbitrary<Node>
    }
    case 'object':
      return objectValue(schema, pools, depth)
    default:
      // No type: the route reads the value itself (a webhook, an echo); any JSON goes.
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Node>
  }
}

function integerValue(schema: JsonSchema, pools: Pools): fc.Arbitrary<Node> {
  const min = Math.max(schema.minimum ?? -INT32 - 1, -INT32 - 1)
  const max = Math.min(schema.maximum ?? INT32, INT32)
  const real = pools.ids.filter((id) => id >= min && id <= max)
  const options: fc.Arbitrary<Node>[] = [fc.integer({ min, max }), fc.constantFrom(min, max)]
  if (real.length) options.push(fc.constantFrom(...real), fc.constantFrom(...real))
  return fc.oneof(...options)
}

function stringValue(schema: JsonSchema, name: string, pools: Pools): fc.Arbitrary<Node> {
  const minLength = schema.minLength ?? 0
  const maxLength = schema.maxLength ?? Infinity
  // Padded or cut to the schema's length rather than filtered: a filter nothing passes would loop for ever.
  const fit = (text: string) => (text.length < minLength ? text.padEnd(minLength, 'x') : text.slice(0, maxLength))
  const sized = (arbitrary: fc.Arbitrary<string>) => arbitrary.map(fit)
  const random = sized(fc.string({ maxLength: Math.min(Math.max(minLength, 40), maxLength) }))
  if (schema.format === 'email' || /email/.test(name)) return fc.oneof(sized(fc.constantFrom(...pools.emails)), sized(fc.emailAddress()))
  if (schema.format === 'date-time')
    return fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString())
  if (schema.format === 'date' || name === 'dob')
    return fc
      .date({ min: new Date('1900-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
      .map((date) => date.toISOString().slice(0, 10))
  if (schema.format === 'uri' || /url|photo|image|link/.test(name)) return fc.oneof(sized(fc.webUrl()), sized(fc.constant('')))
  if (schema.pattern)
    return fc.oneof(
      fc.stringMatching(new RegExp(schema.pattern)).map((text) => text.slice(0, maxLength)),
      random,
    )
  if (/password/.test(name)) return fc.oneof(sized(fc.constant(pools.password)), random)
  if (/username/.test(name)) return sized(fc.constantFrom(...pools.usernames))
  if (name === 'registration_id') return sized(fc.oneof(fc.constantFrom(...pools.deviceIds), fc.stringMatching(/^[0-9a-f]{16,64}$/)))
  // Query filters are mostly typed as text and read as ids, id lists, names or orderings.
  const idText = fc.constantFrom(...pools.ids).map(String)
  return fc.oneof(
    { weight: 3, arbitrary: random },
    { weight: 2, arbitrary: sized(idText) },
    { weight: 1, arbitrary: sized(fc.array(idText, { minLength: 1, maxLength: 4 }).map((ids) => ids.join(','))) },
    { weight: 1, arbitrary: sized(fc.constantFrom(...pools.usernames)) },
  )
}

function objectValue(schema: JsonSchema, pools: Pools, depth: number): fc.Arbitrary<Node> {
  const properties = schema.properties ?? {}
  const names = Object.keys(properties)
  if (names.length === 0) return fc.constant({})
  const model: Record<string, fc.Arbitrary<Node>> = {}
  for (const name of names) model[name] = validValue(properties[name], name, pools, depth + 1)
  const required = (schema.required ?? []).filter((name) => name in model)
  return fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Node>
}

/**
 * An object the schema almost accepts: valid, then one change, the way a client gets one field wrong:
 * a malformed value, a wrong JSON type, null, a missing required field, or a field nobody declared.
 */
export function nearValidObject(schema: JsonSchema, pools: Pools, json: boolean): fc.Arbitrary<Node> {
  const names = Object.keys(schema.properties ?? {})
  const base = objectValue(schema, pools, 0) as fc.Arbitrary<Record<string, Node>>
  if (names.length === 0)
    return fc
      .tuple(base, fc.string({ maxLength: 12 }), malformedJson)
      .map(([object, key, value]) => ({ ...object, [key || 'extra']: value }))
  const badValue = json ? malformedJson : malformedText
  const change = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(fc.constantFrom(...names), badValue).map(([name, value]) => ({ name, value: value as Node | undefined })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...names).map((name) => ({ name, value: mark(null, 'null') as Node | undefined })) },
    { weight: 1, arbitrary: fc.constantFrom(...names).map((name) => ({ name, value: undefined as Node | undefined })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 12 }), badValue)
        .map(([name, value]) => ({ name: `${name}_unknown`, value: value as Node | undefined })),
    },
  )
  return fc.tuple(base, fc.array(change, { minLength: 1, maxLength: 2 })).map(([object, changes]) => {
    const changed: Record<string, Node> = { ...object }
    for (const { name, value } of changes) {
      if (value === undefined) delete changed[name]
      else changed[name] = value
    }
    return changed
  })
}
