/** ILIKE treats % and _ as wildcards; a search term means the literal text. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}
