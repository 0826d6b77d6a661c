/**
 * The routes' schemas are read by Fastify's Ajv in draft 7, where a tuple is `items: [...]` with
 * `additionalItems`; OpenAPI 3.1 schemas are JSON Schema 2020-12, where that is `prefixItems` and `items`.
 * Rewrites every such tuple in the document, in place.
 */
export function tuplesAs2020(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) tuplesAs2020(item)
    return
  }
  if (node === null || typeof node !== 'object') return
  const schema = node as Record<string, unknown>
  if (Array.isArray(schema.items)) {
    schema.prefixItems = schema.items
    if ('additionalItems' in schema) schema.items = schema.additionalItems
    else delete schema.items
    delete schema.additionalItems
  }
  for (const value of Object.values(schema)) tuplesAs2020(value)
}
