/** DRF SimpleMetadata field descriptions, derived from a route's JSON schema. */
interface JsonSchema {
  type?: string | string[]
  format?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  enum?: unknown[]
  const?: unknown
  description?: string
  title?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  readOnly?: boolean
}

function fieldType(schema: JsonSchema): string {
  const options = schema.anyOf?.filter((option) => option.type !== 'null') ?? []
  if (options.length === 1) return fieldType(options[0])
  if (options.length > 1 && options.every((o) => o.const !== undefined)) return 'choice'
  if (schema.enum) return 'choice'
  switch (schema.type) {
    case 'integer':
      return 'integer'
    case 'number':
      return 'float'
    case 'boolean':
      return 'boolean'
    case 'array':
      return 'list'
    case 'object':
      return 'nested object'
    case 'string':
      if (schema.format === 'date-time') return 'datetime'
      if (schema.format === 'date') return 'date'
      if (schema.format === 'email') return 'email'
      if (schema.format === 'uri') return 'url'
      return 'string'
    default:
      return 'field'
  }
}

function label(name: string): string {
  const words = name.replace(/_/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export function describeFields(body: unknown): Record<string, unknown> {
  const schema = body as JsonSchema
  const out: Record<string, unknown> = {}
  const required = new Set(schema.required ?? [])
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const field: Record<string, unknown> = {
      type: fieldType(property),
      required: required.has(name),
      read_only: property.readOnly === true,
      label: property.title ?? label(name),
    }
    if (property.description) field.help_text = property.description
    if (property.minLength !== undefined) field.min_length = property.minLength
    if (property.maxLength !== undefined) field.max_length = property.maxLength
    if (property.minimum !== undefined) field.min_value = property.minimum
    if (property.maximum !== undefined) field.max_value = property.maximum
    if (property.enum) field.choices = property.enum.map((value) => ({ value, display_name: String(value) }))
    if (property.type === 'array' && property.items) field.child = { type: fieldType(property.items) }
    if (property.type === 'object' && property.properties) field.children = describeFields(property)
    out[name] = field
  }
  return out
}
