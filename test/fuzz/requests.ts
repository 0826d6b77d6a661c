import fc from 'fast-check'
import { DEEP_JSON_ARRAY, DEEP_JSON_OBJECT, malformedJson, malformedText, OVER_LIMIT_TEXT } from './catalogue.ts'
import { jsonText, kindsOf, mark, pairsOf, raw, type Node } from './nodes.ts'
import type { JsonSchema, RouteSpec } from './routes.ts'
import { nearValidObject, validValue, type Pools } from './schema-values.ts'

/** Who a case claims to be: nobody, the fuzz's ordinary user, its staff user, or a broken credential. */
export type Identity = { kind: 'anonymous' } | { kind: 'user' } | { kind: 'staff' } | { kind: 'bad'; header: string; label: string }

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; node: Node; contentType: string; encoding: Encoding }
  | { kind: 'form'; fields: [string, Node][]; contentType: string; encoding: Encoding }
  | { kind: 'bytes'; contentType: string | null; bytes: string; label: string }

type Encoding = 'utf8' | 'utf16le' | 'latin1' | 'invalid-utf8'

/** One generated request, kept structured so fast-check can shrink each part. */
export interface CaseSpec {
  params: Record<string, Node>
  query: [string, Node][]
  /** Appended to the query string without encoding: broken percent-escapes and odd separators. */
  rawQuery: string | null
  body: Body
  identity: Identity
  appKey: { where: 'header' | 'query'; value: string } | null
  accept: string | null
  host: string | null
  /** How many copies go at once: concurrent duplicates. */
  copies: number
}

/** The request a CaseSpec stands for, ready for app.inject. */
export interface HttpRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: Buffer
  kinds: string[]
  identity: Identity['kind']
}

/** Filter names the clients send (../shared/research/clients.md), offered to every route besides its own. */
const CLIENT_FILTERS = [
  'id',
  'id__in',
  'search',
  'page',
  'page_size',
  'ordering',
  'parent',
  'question',
  'user',
  'following',
  'following__id__in',
  'username__iexact',
  'politician__type',
  'locations__geo',
  'compare_check',
  'tags__tag',
  'in_collections__parent',
  'answered_by',
  'user__id',
  'limit_count',
  'id__in!',
  'user__group_memberships__group',
  'user__locations__geo',
  'voter_age__gte',
  'voter_age__lte',
  'geo',
  'usera',
  'userb',
  'users',
  'email',
  'group',
  'exact_question',
  'count',
  'my_history',
  'nearby',
  'order',
  'return_unanswered_count',
  'return_full_count',
  'format',
  'AppAuthorization',
]
const FILTER_SUFFIXES = ['', '__in', '__gte', '__lte', '__iexact', '__isnull', '!', '__id', '__id__in']
const ORDERING_WORDS = [
  'id',
  'created_at',
  'modified_at',
  'user',
  'question',
  'direct_low',
  'liquid_consensus',
  'order',
  'age_0',
  'age_90',
  'age_91',
  'votes__created_at',
  'text',
  'password_hash',
]

const RAW_QUERY_TAILS = [
  '%FF',
  '%',
  'a=%',
  'a=%E0%A4%A',
  '%zz=1',
  '&&&',
  '=',
  '=1',
  'a',
  'a=1=2',
  'a[b]=1',
  'page=1&page=2',
  ';',
  'a=%00',
  '%00=1',
  'id__in=',
  'page_size=',
  'ordering=',
  'format=api',
]

const BAD_PATH_SEGMENTS: [string, string][] = [
  ['%FF', 'path:bad-percent'],
  ['%', 'path:bad-percent'],
  ['%zz', 'path:bad-percent'],
  ['%E0%A4%A', 'path:bad-percent'],
  ['%00', 'path:nul'],
  ['1%00', 'path:nul'],
  ['%2F', 'path:slash'],
  ['%2e%2e', 'path:dots'],
  ['a'.repeat(5000), 'path:long'],
  ['%C3%A9', 'path:unicode'],
  ['2147483647', 'path:unknown-id'],
  ['999999999', 'path:unknown-id'],
  ['0', 'path:zero-id'],
]

const BAD_AUTHORIZATION: [string, string][] = [
  ['Token', 'auth:no-credentials'],
  ['Token ', 'auth:no-credentials'],
  ['Token a b', 'auth:spaces'],
  ['Token 0123456789abcdef0123456789abcdef01234567', 'auth:unknown-token'],
  ['Bearer nonsense', 'auth:unknown-token'],
  ['Basic Zm9vOmJhcg==', 'auth:basic'],
  ['Token \u00ff\u00fe', 'auth:latin1'],
  ['Token ' + 'f'.repeat(5000), 'auth:long'],
  ['Token %00', 'auth:percent'],
  ['Digest x', 'auth:other-scheme'],
  ['', 'auth:empty'],
]

const ACCEPTS = [
  'application/json',
  'text/html',
  '*/*',
  'application/xml',
  'garbage',
  'text/html;q=0.1, application/json',
  'application/json; indent=4',
  'text/html; charset=utf-16',
]
const HOSTS = ['exa mple.org', '[::1', 'a'.repeat(300), 'example.org:99999', '', 'example.org/path', 'ex%41mple.org', 'ünïcode.example']

const JSON_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/vnd.api+json',
  'APPLICATION/JSON',
  'application/json;',
  'text/json',
]
const ODD_CHARSETS: [string, Encoding][] = [
  ['application/json; charset=utf-16le', 'utf16le'],
  ['application/json; charset=latin1', 'latin1'],
  ['application/json; charset=iso-8859-1', 'latin1'],
  ['application/json; charset=bogus', 'utf8'],
  ['application/json; charset=utf-8', 'invalid-utf8'],
  ['application/json', 'invalid-utf8'],
]
const FORM_TYPES = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/x-www-form-urlencoded; charset=latin1',
]

const JSON_SYNTAX_GARBAGE: [string, string][] = [
  ['{', 'json:truncated'],
  ['{"a":', 'json:truncated'],
  ['{"a":1,}', 'json:trailing-comma'],
  ["{'a':1}", 'json:single-quotes'],
  ['{a:1}', 'json:bare-keys'],
  ['\ufeff{}', 'json:bom'],
  ['{"a":1}{"b":2}', 'json:two-values'],
  ['{"__proto__":{"x":1}}', 'json:proto'],
  ['{"constructor":{"prototype":{"x":1}}}', 'json:proto'],
  [DEEP_JSON_ARRAY, 'deep-nesting'],
  [DEEP_JSON_OBJECT, 'deep-nesting'],
  ['"\\ud800"', 'json:lone-surrogate'],
  ['{"a":"\\u0000"}', 'nul'],
]

const BYTES_BODIES: [string | null, string, string][] = [
  ['text/plain', 'hello', 'content-type:text'],
  ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--', 'content-type:multipart'],
  ['multipart/form-data', 'garbage', 'content-type:multipart'],
  ['application/octet-stream', '\u0000\u0001\u00ff', 'content-type:binary'],
  [null, '{"a":1}', 'content-type:none'],
  ['', '{"a":1}', 'content-type:empty'],
  ['garbage/ /', '{}', 'content-type:garbage'],
  ['application/xml', '<a/>', 'content-type:xml'],
  ['application/json', '', 'json:empty'],
  ['application/json', 'null', 'json:null'],
  ['application/x-www-form-urlencoded', 'a=%FF&b=%&%zz', 'form:bad-percent'],
  ['application/x-www-form-urlencoded', 'a=1%00', 'nul'],
  ['application/json', JSON.stringify({ text: OVER_LIMIT_TEXT }), 'body:over-limit'],
]

function bodyArbitrary(route: RouteSpec, pools: Pools): fc.Arbitrary<Body> {
  const schema: JsonSchema = route.body?.properties ? route.body : { type: 'object', properties: {} }
  const jsonNode = fc.oneof(
    { weight: 3, arbitrary: validValue(schema, 'body', pools) },
    { weight: 5, arbitrary: nearValidObject(schema, pools, true) },
    { weight: 1, arbitrary: malformedJson.map((node) => mark(node, 'body:not-an-object')) },
    { weight: 1, arbitrary: fc.constantFrom(...JSON_SYNTAX_GARBAGE).map(([text, kind]) => raw(text, kind)) },
  )
  const json = fc
    .oneof(
      {
        weight: 5,
        arbitrary: fc.record({ node: jsonNode, contentType: fc.constantFrom(...JSON_TYPES), encoding: fc.constant<Encoding>('utf8') }),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(jsonNode, fc.constantFrom(...ODD_CHARSETS))
          .map(([node, [contentType, encoding]]) => ({ node, contentType, encoding })),
      },
    )
    .map((body) => ({ kind: 'json' as const, ...body }))
  const formObject = fc.oneof(validValue(schema, 'body', pools), nearValidObject(schema, pools, false))
  const form = fc
    .record({
      object: formObject,
      contentType: fc.constantFrom(...FORM_TYPES),
      encoding: fc.constantFrom<Encoding>('utf8', 'utf8', 'utf8', 'invalid-utf8'),
    })
    .map(({ object, contentType, encoding }) => ({
      kind: 'form' as const,
      fields: Object.entries(object as Record<string, Node>) as [string, Node][],
      contentType,
      encoding,
    }))
  const bytes = fc
    .constantFrom(...BYTES_BODIES)
    .map(([contentType, text, label]) => ({ kind: 'bytes' as const, contentType, bytes: text, label }))
  return fc.oneof(
    { weight: 8, arbitrary: json },
    { weight: 3, arbitrary: form },
    { weight: 2, arbitrary: bytes },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  )
}

function paramArbitrary(name: string, schema: JsonSchema | undefined, pools: Pools, realIds: number[]): fc.Arbitrary<Node> {
  const bad = fc.constantFrom(...BAD_PATH_SEGMENTS).map(([text, kind]) => mark(text, kind))
  const valid = realIds.length ? fc.constantFrom(...realIds) : validValue(schema, name, pools)
  return fc.oneof(
    { weight: 6, arbitrary: valid as fc.Arbitrary<Node> },
    { weight: 2, arbitrary: bad },
    { weight: 2, arbitrary: malformedText },
  )
}

function queryArbitrary(route: RouteSpec, pools: Pools): fc.Arbitrary<[string, Node][]> {
  const properties = route.querystring?.properties ?? {}
  const own = Object.keys(properties)
  const filterNames = fc
    .tuple(fc.constantFrom(...own, ...CLIENT_FILTERS), fc.constantFrom(...FILTER_SUFFIXES))
    .map(([name, suffix]) => name + suffix)
  const ordering = fc
    .array(fc.tuple(fc.constantFrom('', '-', '--', '+'), fc.constantFrom(...ORDERING_WORDS, ...own)), { minLength: 1, maxLength: 3 })
    .map((terms) => terms.map(([sign, word]) => sign + word).join(','))
  const pair = fc.oneof(
    ...(own.length
      ? [
          {
            weight: 5,
            arbitrary: fc.constantFrom(...own).chain((name) => fc.tuple(fc.constant(name), validValue(properties[name], name, pools))),
          },
          { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...own), malformedText) },
        ]
      : []),
    { weight: 2, arbitrary: fc.tuple(filterNames, fc.oneof(validValue(undefined, 'filter', pools), malformedText, fc.constant<Node>(''))) },
    { weight: 1, arbitrary: fc.tuple(fc.constant('ordering'), ordering as fc.Arbitrary<Node>) },
    { weight: 1, arbitrary: fc.tuple(fc.constant('format'), fc.constantFrom<Node>('api', 'json', 'xml', '', 'API')) },
  ) as fc.Arbitrary<[string, Node]>
  return fc.array(pair, { maxLength: 5 })
}

const identityArbitrary: fc.Arbitrary<Identity> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Identity>({ kind: 'anonymous' }) },
  { weight: 3, arbitrary: fc.constant<Identity>({ kind: 'user' }) },
  { weight: 4, arbitrary: fc.constant<Identity>({ kind: 'staff' }) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_AUTHORIZATION).map(([header, label]): Identity => ({ kind: 'bad', header, label })) },
)

/** Every part of a request to one route, from its schemas: valid, near-valid and malformed. */
export function caseArbitrary(route: RouteSpec, pools: Pools, realIds: number[]): fc.Arbitrary<CaseSpec> {
  const paramNames = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1])
  const params: Record<string, fc.Arbitrary<Node>> = {}
  for (const name of paramNames) params[name] = paramArbitrary(name, route.params?.properties?.[name], pools, realIds)
  const writes = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method)
  const rare = <T>(value: fc.Arbitrary<T>, otherwise: T, weight = 8) =>
    fc.oneof({ weight, arbitrary: fc.constant(otherwise) }, { weight: 1, arbitrary: value })
  return fc.record({
    params: fc.record(params),
    query: queryArbitrary(route, pools),
    rawQuery: rare(fc.constantFrom(...RAW_QUERY_TAILS), null, 6),
    body: writes ? bodyArbitrary(route, pools) : rare(bodyArbitrary(route, pools), { kind: 'none' } as Body, 12),
    identity: identityArbitrary,
    appKey: rare(
      fc.record({
        where: fc.constantFrom<'header' | 'query'>('header', 'query'),
        value: fc.constantFrom('garbage', '', ' ', '%00', 'x'.repeat(3000)),
      }),
      null,
      12,
    ),
    accept: rare(fc.constantFrom(...ACCEPTS), null, 4),
    host: rare(fc.constantFrom(...HOSTS), null, 20),
    copies: rare(fc.integer({ min: 2, max: 3 }), 1, 15),
  })
}

function encode(text: string, encoding: Encoding): Buffer {
  if (encoding === 'utf16le') return Buffer.from(text, 'utf16le')
  if (encoding === 'latin1') return Buffer.from(text, 'latin1')
  const bytes = Buffer.from(text, 'utf8')
  if (encoding !== 'invalid-utf8') return bytes
  // Bytes no UTF-8 encoder writes (a lone continuation byte, an overlong NUL, 0xFF), inside the first string.
  const at = Math.max(0, text.indexOf('"', 1) + 1)
  const cut = Buffer.byteLength(text.slice(0, at), 'utf8')
  return Buffer.concat([bytes.subarray(0, cut), Buffer.from([0x80, 0xc0, 0x80, 0xff]), bytes.subarray(cut)])
}

/** encodeURIComponent, except that lone surrogates travel as UTF-8 of U+FFFD instead of throwing. */
function percentEncode(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-_.!~*'()]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

function segment(node: Node): string {
  const kinds = kindsOf(node)
  const text = node !== null && typeof node === 'object' && 'node' in node ? String(node.node) : String(node)
  // Path specimens are already written as they travel (broken escapes on purpose); other values are escaped.
  return [...kinds].some((kind) => kind.startsWith('path:')) ? text : percentEncode(text)
}

/** The concrete request: URL, headers and payload bytes, with the classes of malformed input it carries. */
export function render(route: RouteSpec, spec: CaseSpec, tokens: { user: string; staff: string }): HttpRequest {
  const kinds = new Set<string>()
  const path = route.url.replace(/:(\w+)/g, (_match, name: string) => {
    const node = spec.params[name]
    kindsOf(node, kinds)
    return segment(node)
  })
  const pairs = spec.query.flatMap(([name, node]) => {
    kindsOf(node, kinds)
    return pairsOf(name, node)
  })
  const headers: Record<string, string> = {}
  if (spec.appKey) {
    kinds.add(`app-key:${spec.appKey.where}`)
    if (spec.appKey.where === 'query') pairs.push(['AppAuthorization', spec.appKey.value])
    else headers.appauthorization = spec.appKey.value
  }
  let query = pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')
  if (spec.rawQuery !== null) {
    kinds.add(`query:raw ${spec.rawQuery}`)
    query = query ? `${query}&${spec.rawQuery}` : spec.rawQuery
  }
  if (spec.identity.kind === 'user') headers.authorization = `Token ${tokens.user}`
  if (spec.identity.kind === 'staff') headers.authorization = `Token ${tokens.staff}`
  if (spec.identity.kind === 'bad') {
    headers.authorization = spec.identity.header
    kinds.add(spec.identity.label)
  }
  if (spec.accept !== null) headers.accept = spec.accept
  if (spec.host !== null) {
    headers.host = spec.host
    kinds.add('header:odd-host')
  }
  let payload: Buffer | undefined
  const body = spec.body
  if (body.kind === 'json') {
    kindsOf(body.node, kinds)
    if (body.encoding !== 'utf8') kinds.add(`charset:${body.encoding}`)
    headers['content-type'] = body.contentType
    payload = encode(jsonText(body.node), body.encoding)
  } else if (body.kind === 'form') {
    body.fields.forEach(([, node]) => kindsOf(node, kinds))
    kinds.add('body:form')
    if (body.encoding !== 'utf8') kinds.add(`charset:${body.encoding}`)
    headers['content-type'] = body.contentType
    const text = body.fields
      .flatMap(([name, node]) => pairsOf(name, node))
      .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`)
      .join('&')
    payload = encode(text, body.encoding)
  } else if (body.kind === 'bytes') {
    kinds.add(body.label)
    if (body.contentType !== null) headers['content-type'] = body.contentType
    payload = Buffer.from(body.bytes, 'latin1')
  }
  if (spec.copies > 1) kinds.add('concurrent-duplicates')
  return {
    method: route.method,
    url: query ? `${path}?${query}` : path,
    headers,
    payload,
    kinds: [...kinds].sort(),
    identity: spec.identity.kind,
  }
}
