import { sql, type Kysely } from 'kysely'

/**
 * Runs a script of several statements. PGlite's extended protocol takes one statement per
 * call, so the script is split on semicolons that end a line outside dollar-quoted bodies.
 */
export async function runScript(db: Kysely<unknown>, script: string): Promise<void> {
  for (const statement of splitStatements(script)) {
    await sql.raw(statement).execute(db)
  }
}

export function splitStatements(script: string): string[] {
  const statements: string[] = []
  let current: string[] = []
  let inDollarBody = false
  for (const line of script.split('\n')) {
    if (/^\s*--/.test(line) && current.length === 0) continue
    current.push(line)
    const dollars = line.match(/\$\$/g)?.length ?? 0
    if (dollars % 2 === 1) inDollarBody = !inDollarBody
    if (!inDollarBody && /;\s*$/.test(line)) {
      const text = current.join('\n').trim()
      if (text !== ';') statements.push(text)
      current = []
    }
  }
  const rest = current.join('\n').trim()
  if (rest) statements.push(rest)
  return statements
}
