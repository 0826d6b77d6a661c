import AjvCompiler from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

type CompilersFactory = Required<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>>
type Serializer = (data: unknown) => string
type Validator = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown }

// One of each for the process. Fastify makes new ones for every app it builds, and compiling the routes' schemas
// is most of the cost of building one: shared, an app built again (tests build many) compiles only what is new.
// Ajv keeps what it compiled by schema object; serializers are kept here the same way.
const validatorPool = AjvCompiler()
const serializerFactory = SerializerSelector()
const serializers = new Map<string, WeakMap<object, Serializer>>()

const buildSerializer: CompilersFactory['buildSerializer'] = (externalSchemas, options) => {
  const compile = serializerFactory(externalSchemas, options)
  const key = JSON.stringify([externalSchemas, options])
  let kept = serializers.get(key)
  if (!kept) serializers.set(key, (kept = new WeakMap()))
  const byRoute = kept
  return (route) => {
    const schema = route.schema as object
    let serializer = byRoute.get(schema)
    if (!serializer) byRoute.set(schema, (serializer = compile({ ...route, schema: nullsAsTypes(schema) })))
    return serializer
  }
}

type SchemaNode = Record<string, unknown>
const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null
const CHOOSES = ['anyOf', 'oneOf', 'allOf', 'const', '$ref', 'not', 'if']

/**
 * `anyOf: [X, null]` (a nullable field, `Nullable` in http/schemas.ts) as `type: [X's type, 'null']`, for the
 * serializer only. fast-json-stringify picks an `anyOf` branch by validating the value against each branch with
 * Ajv, on every value it writes (an object's whole tree, for a nullable object); a list of types it picks by the
 * value's own type. The document and the validation keep the union.
 */
export function nullsAsTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullsAsTypes)
  if (!isNode(schema)) return schema
  const out: SchemaNode = {}
  for (const [key, value] of Object.entries(schema)) out[key] = nullsAsTypes(value)
  const branches = out.anyOf
  if (!Array.isArray(branches) || branches.length !== 2) return out
  const nullAt = branches.findIndex((branch) => isNode(branch) && branch.type === 'null' && Object.keys(branch).length === 1)
  const other = branches[1 - nullAt]
  if (nullAt === -1 || !isNode(other) || typeof other.type !== 'string') return out
  if (CHOOSES.some((keyword) => keyword in other)) return out
  const { anyOf: _union, ...siblings } = out
  const merged: SchemaNode = { ...other, ...siblings, type: [other.type, 'null'] }
  if (Array.isArray(other.enum)) merged.enum = [...other.enum, null]
  return merged
}

/** The compilers shared by every app of the process: each schema compiled once, on the app's start. */
export const sharedCompilers: CompilersFactory = {
  buildValidator: validatorPool as unknown as CompilersFactory['buildValidator'],
  buildSerializer,
}

/**
 * The same, compiling each schema when a request first needs it: an app that serves few of its routes (a test's)
 * starts in a fraction of the time. A schema that cannot compile then fails its first request instead of the start.
 * Given `unwarmed`, each route's compilation waits there too, for `compileInBackground` once the app serves.
 */
export function compilersOnFirstUse(unwarmed?: Set<() => void>): CompilersFactory {
  return {
    buildValidator: ((externalSchemas: unknown, options: unknown) => {
      const compile = (validatorPool as unknown as (...args: unknown[]) => (route: unknown) => Validator)(externalSchemas, options)
      return (route: unknown) => {
        let validator: Validator | undefined
        const warm = () => {
          validator ??= compile(route)
          unwarmed?.delete(warm)
          return validator
        }
        unwarmed?.add(warm)
        const onFirstUse: Validator = (data, context) => {
          const compiled = warm()
          const valid = compiled(data, context)
          onFirstUse.errors = compiled.errors
          return valid
        }
        // Fastify passes Ajv's validators the request as parent, so that a coerced root value is kept.
        onFirstUse.schemaEnv = true
        return onFirstUse
      }
    }) as unknown as CompilersFactory['buildValidator'],
    buildSerializer: (externalSchemas, options) => {
      const compile = buildSerializer(externalSchemas, options)
      return (route) => {
        let serializer: Serializer | undefined
        const warm = () => {
          serializer ??= compile(route)
          unwarmed?.delete(warm)
          return serializer
        }
        unwarmed?.add(warm)
        return (data: unknown) => warm()(data)
      }
    },
  }
}

/**
 * Compiles what `unwarmed` holds a few schemas at a time, yielding to requests between slices, so a process is
 * ready before its routes' schemas are compiled and they are compiled before most requests need them. Answers how
 * many were compiled; a schema that fails is reported and left to fail its first request.
 */
export async function compileInBackground(unwarmed: Set<() => void>, onError: (error: unknown) => void, sliceMs = 10): Promise<number> {
  let compiled = 0
  while (unwarmed.size > 0) {
    const started = performance.now()
    for (const warm of unwarmed) {
      try {
        warm()
      } catch (error) {
        unwarmed.delete(warm)
        onError(error)
      }
      compiled++
      if (performance.now() - started > sliceMs) break
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  return compiled
}
