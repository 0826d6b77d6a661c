import fc from 'fast-check'
import { mark, raw, type Node } from './nodes.ts'

/**
 * Inputs known to break services like this one: each found answering 500 here once, or a close relative of
 * one that did. Every entry carries the class name failures are grouped by.
 */

const DIGITS_300 = '9'.repeat(300)

/** Number-like text a lax parser (Number(), parseInt, PostgreSQL's casts) reads differently from a strict one. */
export const NUMBER_TEXTS: [string, string][] = [
  ['Infinity', 'number:Infinity'],
  ['-Infinity', 'number:Infinity'],
  ['NaN', 'number:NaN'],
  ['1e309', 'number:overflow'],
  ['-1e309', 'number:overflow'],
  [DIGITS_300, 'number:300-digits'],
  [`-${DIGITS_300}`, 'number:300-digits'],
  ['0x10', 'number:radix'],
  ['0b11', 'number:radix'],
  ['0o7', 'number:radix'],
  ['1_000', 'number:separator'],
  ['1e3', 'number:exponent'],
  ['1e-400', 'number:underflow'],
  ['1.5', 'number:fraction'],
  ['-1', 'number:negative'],
  ['0', 'number:zero'],
  ['-0', 'number:zero'],
  ['+1', 'number:sign'],
  [' 1', 'number:padded'],
  ['1 ', 'number:padded'],
  ['2147483648', 'number:int32-overflow'],
  ['-2147483649', 'number:int32-overflow'],
  ['9007199254740993', 'number:unsafe-integer'],
  ['00012', 'number:leading-zeros'],
  ['１２', 'number:non-ascii-digits'],
  ['١٢', 'number:non-ascii-digits'],
  ['', 'empty'],
  [' ', 'blank'],
]

/** Tokens a JSON body may carry that JSON.stringify never writes: some valid JSON, some not. */
export const JSON_NUMBER_TOKENS: [string, string][] = [
  ['1e309', 'json:overflow'],
  ['-1e309', 'json:overflow'],
  [DIGITS_300, 'json:300-digits'],
  [`-${DIGITS_300}`, 'json:300-digits'],
  ['1e-400', 'json:underflow'],
  ['-0', 'json:negative-zero'],
  ['1.0', 'json:integral-float'],
  ['2147483648', 'json:int32-overflow'],
  ['9007199254740993', 'json:unsafe-integer'],
  ['1.5', 'json:fraction'],
  ['Infinity', 'json:invalid-token'],
  ['-Infinity', 'json:invalid-token'],
  ['NaN', 'json:invalid-token'],
  ['0x10', 'json:invalid-token'],
  ['0b11', 'json:invalid-token'],
  ['0o7', 'json:invalid-token'],
  ['1_000', 'json:invalid-token'],
  ['01', 'json:invalid-token'],
]

export const DEEP_JSON_ARRAY = '['.repeat(5000) + ']'.repeat(5000)
export const DEEP_JSON_OBJECT = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)

/** Text PostgreSQL's date and time input accepts that no client means (epoch, infinity) and near-dates. */
export const DATE_TEXTS = [
  '2026-13-45',
  '0000-00-00',
  '99999-01-01',
  '1990-1-5',
  '2026-02-30',
  '2026-11-23T25:61:00Z',
  'infinity',
  '-infinity',
  'epoch',
  'now',
  'today',
  'allballs',
  'yesterday',
  '1970-01-01T00:00:00+99:00',
  '0001-01-01',
  '-0001-01-01',
  '2026-11-23 BC',
]

export const TEXT_SPECIMENS: [string, string][] = [
  ['\u0000', 'nul'],
  ['a\u0000b', 'nul'],
  ['%00', 'percent-nul'],
  ['\ud800', 'lone-surrogate'],
  ['\udfff\ud800', 'lone-surrogate'],
  ["'; DROP TABLE users; --", 'sql'],
  ['%', 'percent'],
  ['%FF', 'percent'],
  ['../../etc/passwd', 'path'],
  ['<script>alert(1)</script>', 'html'],
  ['\u202e\u0645\u0631\u062d\u0628\u0627', 'bidi'],
  ['e\u0301\u0301\u0301', 'combining'],
  ['😀👨‍👩‍👧', 'emoji'],
  ['\n\t\r', 'control'],
  ['null', 'word'],
  ['true', 'word'],
  ['undefined', 'word'],
  ['[]', 'word'],
  ['{}', 'word'],
  ['\\', 'backslash'],
  ['"', 'quote'],
  ['a,b,,', 'list-text'],
  [',', 'list-text'],
  ['1,2,x', 'list-text'],
  ['1,,2', 'list-text'],
  ['-', 'ordering-text'],
  ['--created_at', 'ordering-text'],
  ['javascript:alert(1)', 'url'],
  ['http://', 'url'],
  ['http://[::1', 'url'],
  ['mailto:', 'url'],
  ['a@b', 'email'],
  ['@', 'email'],
  [`${'a'.repeat(300)}@example.org`, 'email'],
  ['user@exa mple.org', 'email'],
]

/** Huge strings: a long field (200 KB, under the body limit) and one over the limit (413). */
export const HUGE_TEXT = 'x'.repeat(200_000)
export const OVER_LIMIT_TEXT = 'y'.repeat(1_100_000)

const fromPairs = (pairs: [string, string][]) => fc.constantFrom(...pairs).map(([text, kind]) => mark(text, kind))

/** A malformed value as text: what a query parameter, a form field or a path segment can carry. */
export const malformedText: fc.Arbitrary<Node> = fc.oneof(
  { weight: 4, arbitrary: fromPairs(NUMBER_TEXTS) },
  { weight: 3, arbitrary: fromPairs(TEXT_SPECIMENS) },
  { weight: 1, arbitrary: fc.constantFrom(...DATE_TEXTS).map((text) => mark(text, 'date-text')) },
  { weight: 1, arbitrary: fc.constant(mark(HUGE_TEXT, 'huge-string')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((text) => mark(text, 'random-unicode')) },
)

/** A malformed value inside a JSON body: the texts above plus raw number tokens, wrong JSON types and deep nesting. */
export const malformedJson: fc.Arbitrary<Node> = fc.oneof(
  { weight: 3, arbitrary: malformedText },
  { weight: 3, arbitrary: fc.constantFrom(...JSON_NUMBER_TOKENS).map(([text, kind]) => raw(text, kind)) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom<Node>([], [1], ['a', null], {}, { a: 1 }, { id: 1 }, true, false, null, 0, -1, 1.5)
      .map((value) => mark(value, `wrong-type:${typeName(value)}`)),
  },
  { weight: 1, arbitrary: fc.constantFrom(raw(DEEP_JSON_ARRAY, 'deep-nesting'), raw(DEEP_JSON_OBJECT, 'deep-nesting')) },
)

function typeName(value: Node): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'list'
  return typeof value
}
