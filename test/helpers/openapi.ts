/**
 * The service's OpenAPI document with every `$ref` to its components replaced by what it names, as a client
 * generator resolves it: the tests read each operation's schemas whole. A reference to nothing throws.
 */
export function inlineRefs<T>(document: T): T {
  const root = document as { components?: Record<string, Record<string, unknown>> }
  const resolve = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => resolve(item, seen))
    if (node === null || typeof node !== 'object') return node
    const ref = (node as { $ref?: unknown }).$ref
    if (typeof ref === 'string' && ref.startsWith('#/components/')) {
      const [kind, name] = ref.slice('#/components/'.length).split('/')
      const target = root.components?.[kind]?.[name]
      if (target === undefined) throw new Error(`${ref} names nothing`)
      if (seen.includes(ref)) throw new Error(`${ref} refers to itself`)
      return resolve(target, [...seen, ref])
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(value, seen)]))
  }
  return { ...document, paths: resolve((document as { paths: unknown }).paths, []) } as T
}
