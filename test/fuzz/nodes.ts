/**
 * The values a fuzz case carries: JSON-like trees whose leaves may be raw JSON text (tokens JSON.stringify
 * cannot write, such as `1e309` or 5,000 nested brackets) and whose malformed parts carry a label, so a
 * failure can say which class of input caused it.
 */
export type Node = null | boolean | number | string | Node[] | { [key: string]: Node } | Raw | Marked

/** Text written verbatim into a JSON body (and as-is into a query or form value). */
export class Raw {
  constructor(
    readonly text: string,
    readonly kind: string,
  ) {}
}

/** A value chosen from the malformed catalogue, labelled with its class. */
export class Marked {
  constructor(
    readonly node: Node,
    readonly kind: string,
  ) {}
}

export const raw = (text: string, kind: string) => new Raw(text, kind)
export const mark = (node: Node, kind: string) => new Marked(node, kind)

/** The JSON text of a node; Raw leaves go in unchanged, so the text may be invalid JSON on purpose. */
export function jsonText(node: Node): string {
  if (node instanceof Raw) return node.text
  if (node instanceof Marked) return jsonText(node.node)
  if (Array.isArray(node)) return `[${node.map(jsonText).join(',')}]`
  if (node !== null && typeof node === 'object') {
    return `{${Object.entries(node)
      .map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`)
      .join(',')}}`
  }
  return JSON.stringify(node) ?? 'null'
}

/** A node as a query or form value: scalars as text, structures as their JSON text (as a browser form would not). */
export function plainText(node: Node): string {
  if (node instanceof Raw) return node.text
  if (node instanceof Marked) return plainText(node.node)
  if (node === null) return ''
  if (typeof node === 'object') return jsonText(node)
  return String(node)
}

/** A node as query or form pairs under a name: a list becomes a repeated key, as DRF clients send lists. */
export function pairsOf(name: string, node: Node): [string, string][] {
  const inner = node instanceof Marked ? node.node : node
  if (Array.isArray(inner)) return inner.length === 0 ? [[name, '']] : inner.map((item) => [name, plainText(item)] as [string, string])
  return [[name, plainText(node)]]
}

/** Every label inside a node, for grouping failures by input class. */
export function kindsOf(node: Node, into: Set<string> = new Set()): Set<string> {
  if (node instanceof Raw) into.add(node.kind)
  else if (node instanceof Marked) {
    into.add(node.kind)
    kindsOf(node.node, into)
  } else if (Array.isArray(node)) node.forEach((item) => kindsOf(item, into))
  else if (node !== null && typeof node === 'object') Object.values(node).forEach((item) => kindsOf(item, into))
  return into
}

/** A short, printable form of a long text for failure messages. */
export function abbreviate(text: string, max = 300): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it makes printable
  const printable = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
  if (printable.length <= max) return printable
  const repeated = /^(.{1,12}?)\1{20,}/s.exec(printable)
  if (repeated) return `${repeated[1]}×${Math.floor(repeated[0].length / repeated[1].length)}…(${text.length} chars)`
  return `${printable.slice(0, max)}…(${text.length} chars)`
}
