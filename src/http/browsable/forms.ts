import { escapeHtml } from './html.ts'
import { CSRF_FIELD } from './session.ts'

/** The parts of a TypeBox (JSON Schema) node the forms read. */
interface SchemaNode {
  type?: string | string[]
  properties?: Record<string, SchemaNode>
  required?: string[]
  enum?: unknown[]
  const?: unknown
  anyOf?: SchemaNode[]
  oneOf?: SchemaNode[]
  description?: string
  format?: string
  minimum?: number
  maximum?: number
  maxLength?: number
  default?: unknown
}

/** Query parameters that are the page's own, not filters a person fills in. */
const NOT_FILTERS = new Set(['format', 'AppAuthorization', 'page'])
export const PAGE_SIZES = ['10', '25', '50', '100']

function choicesOf(node: SchemaNode): unknown[] | null {
  if (node.enum) return node.enum
  if (node.const !== undefined) return [node.const]
  const alternatives = node.anyOf ?? node.oneOf
  if (!alternatives) return null
  const literals = alternatives.filter((a) => a.type !== 'null')
  if (literals.length && literals.every((a) => a.const !== undefined || a.enum)) return literals.flatMap((a) => a.enum ?? [a.const])
  return null
}

/** The node without its `null` alternative: nullable fields are filled in as their type. */
function concrete(node: SchemaNode): SchemaNode {
  const alternatives = node.anyOf ?? node.oneOf
  if (!alternatives) return node
  const rest = alternatives.filter((a) => a.type !== 'null')
  return rest.length === 1 ? { ...rest[0], description: node.description ?? rest[0].description } : node
}

function typeOf(node: SchemaNode): string | undefined {
  return Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type
}

/** One labelled input for a schema field, or null for objects and lists (the raw form sends those). */
export function fieldInput(name: string, raw: SchemaNode, required: boolean, value = '', oneLine = false): string | null {
  const node = concrete(raw)
  const id = `f-${name}`
  const attrs = `id="${escapeHtml(id)}" name="${escapeHtml(name)}"${required ? ' required' : ''}`
  const label = `<label for="${escapeHtml(id)}">${escapeHtml(name)}${required ? ' *' : ''}</label>`
  const help = node.description ? `<small>${escapeHtml(node.description)}</small>` : ''
  const choices = choicesOf(node)
  const type = typeOf(node)
  let input: string
  if (choices || type === 'boolean') {
    const options = (choices ?? [true, false]).map((choice) => {
      const text = String(choice)
      return `<option value="${escapeHtml(text)}"${text === value ? ' selected' : ''}>${escapeHtml(text)}</option>`
    })
    input = `<select ${attrs}><option value="">---------</option>${options.join('')}</select>`
  } else if (type === 'integer' || type === 'number') {
    const bounds = `${node.minimum !== undefined ? ` min="${node.minimum}"` : ''}${node.maximum !== undefined ? ` max="${node.maximum}"` : ''}`
    input = `<input type="number" step="${type === 'integer' ? '1' : 'any'}"${bounds} ${attrs} value="${escapeHtml(value)}">`
  } else if (type === 'string' || type === undefined) {
    if (type === undefined && (node.properties || node.anyOf)) return null
    if (!oneLine && (node.maxLength ?? 0) > 255) {
      input = `<textarea ${attrs}>${escapeHtml(value)}</textarea>`
    } else {
      const kind = /password/.test(name)
        ? 'password'
        : node.format === 'email' || name === 'email'
          ? 'email'
          : node.format === 'date'
            ? 'date'
            : 'text'
      const length = node.maxLength !== undefined ? ` maxlength="${node.maxLength}"` : ''
      input = `<input type="${kind}"${length} ${attrs} value="${escapeHtml(value)}">`
    }
  } else {
    return null
  }
  return `${label}${input}${help}`
}

function fieldsOf(
  schema: SchemaNode,
  values: Record<string, string> = {},
  skip = new Set<string>(),
  oneLine = false,
): { html: string; skipped: string[] } {
  const required = new Set(schema.required ?? [])
  const html: string[] = []
  const skipped: string[] = []
  for (const [name, node] of Object.entries(schema.properties ?? {})) {
    if (skip.has(name)) continue
    const input = fieldInput(name, node, required.has(name), values[name] ?? '', oneLine)
    if (input) html.push(input)
    else skipped.push(name)
  }
  return { html: html.join('\n'), skipped }
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`

export interface FormContext {
  /** The page's path and query without `format`, where writes go. */
  target: string
  csrf: string
  /** Where the form endpoints are, with the page's format and key. */
  action: (path: string) => string
}

/** DRF's filter form: the listing's own filters, `ordering` and the page size, sent as a GET to the same page. */
export function filtersForm(
  querySchema: SchemaNode | undefined,
  query: Record<string, unknown>,
  path: string,
  kept: Record<string, string>,
): string {
  const properties = querySchema?.properties ?? {}
  if (!Object.keys(properties).some((name) => !NOT_FILTERS.has(name))) return ''
  const values = Object.fromEntries(Object.entries(query).filter(([, v]) => typeof v === 'string')) as Record<string, string>
  const skip = new Set([...NOT_FILTERS, 'page_size'])
  const { html } = fieldsOf({ ...querySchema, required: [] }, values, skip, true)
  const size =
    'page_size' in properties
      ? `<label for="f-page_size">page_size</label><select id="f-page_size" name="page_size"><option value="">default</option>${PAGE_SIZES.map(
          (s) => `<option${values.page_size === s ? ' selected' : ''}>${s}</option>`,
        ).join('')}</select>`
      : ''
  return `<section class="form filters"><details${Object.keys(values).some((k) => !NOT_FILTERS.has(k)) ? ' open' : ''}><summary>Filters</summary>
<form method="get" action="${escapeHtml(path)}">${Object.entries(kept)
    .map(([n, v]) => hidden(n, v))
    .join('')}
<div class="fields">${html}${size}</div><button type="submit">Apply</button></form></details></section>`
}

/** The HTML form (schema fields) and the raw JSON form for one write method, both posting to the submit endpoint. */
export function methodForm(
  method: string,
  body: SchemaNode | undefined,
  context: FormContext,
  values: Record<string, string> = {},
): string {
  const common = hidden(CSRF_FIELD, context.csrf) + hidden('_method', method) + hidden('_url', context.target)
  const { html, skipped } = body?.properties ? fieldsOf(body, values) : { html: '', skipped: [] }
  const note = skipped.length ? `<p><small>Lists and objects (${skipped.map(escapeHtml).join(', ')}) go in the raw form.</small></p>` : ''
  const htmlForm = html
    ? `<details open><summary>HTML form</summary><form method="post" action="${escapeHtml(context.action('/api/_browse/submit/'))}">${common}
<div class="fields">${html}</div>${note}<button type="submit">${method}</button></form></details>`
    : ''
  const raw = `<details${html ? '' : ' open'}><summary>Raw data</summary><form method="post" action="${escapeHtml(context.action('/api/_browse/submit/'))}">${common}
<div class="fields"><label for="ct-${method}">Media type</label><select id="ct-${method}" name="_content_type"><option>application/json</option><option>application/x-www-form-urlencoded</option></select>
<label for="c-${method}">Content</label><textarea id="c-${method}" name="_content">${escapeHtml(exampleOf(body))}</textarea></div>
<button type="submit">${method}</button></form></details>`
  return `<section class="form method-${method.toLowerCase()}"><h2>${method}</h2>${htmlForm}${raw}</section>`
}

/** A JSON skeleton of the body: each field with an empty value of its type, so the raw form shows what to send. */
function exampleOf(body: SchemaNode | undefined): string {
  if (!body?.properties) return '{}'
  const example: Record<string, unknown> = {}
  for (const [name, raw] of Object.entries(body.properties)) {
    const node = concrete(raw)
    const type = typeOf(node)
    const choices = choicesOf(node)
    example[name] = choices
      ? choices[0]
      : type === 'integer' || type === 'number'
        ? 0
        : type === 'boolean'
          ? false
          : type === 'array'
            ? []
            : type === 'object'
              ? {}
              : ''
  }
  return JSON.stringify(example, null, 4)
}

/** DELETE and OPTIONS as buttons, each a small form to the submit endpoint. */
export function methodButton(method: 'DELETE' | 'OPTIONS', context: FormContext): string {
  return `<form method="post" action="${escapeHtml(context.action('/api/_browse/submit/'))}">${hidden(CSRF_FIELD, context.csrf)}${hidden('_method', method)}${hidden('_url', context.target)}<button type="submit"${method === 'DELETE' ? ' class="danger"' : ''}>${method}</button></form>`
}

/** Sign-in (a small form in the header, no script needed) or the signed-in name with a sign-out button. */
export function userArea(user: string | null, signedInHere: boolean, context: FormContext, next: string): string {
  if (user) {
    const out = signedInHere
      ? ` <form method="post" action="${escapeHtml(context.action('/api/_browse/logout/'))}">${hidden(CSRF_FIELD, context.csrf)}${hidden('next', next)}<button type="submit">Sign out</button></form>`
      : ''
    return `<span class="user">Signed in as <b>${escapeHtml(user)}</b>${out}</span>`
  }
  return `<details class="user"><summary>Sign in</summary><form method="post" action="${escapeHtml(context.action('/api/_browse/login/'))}">${hidden(CSRF_FIELD, context.csrf)}${hidden('next', next)}
<label for="login-username">Username or e-mail</label><input id="login-username" name="username" autocomplete="username" required>
<label for="login-password">Password</label><input id="login-password" type="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form></details>`
}
