import { readdirSync } from 'node:fs'
import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'

/**
 * For each URL whose access rule is `owner`: makes an object owned by the given user and returns the path
 * parameters that name it. Each module keeps its own in a file of this folder exporting `owned`.
 */
export type OwnedObjects = Record<string, (db: Kysely<Database>, ownerId: number) => Promise<Record<string, string>>>

export async function allOwnedObjects(): Promise<OwnedObjects> {
  const folder = new URL('./', import.meta.url)
  const files = readdirSync(folder).filter((file) => file.endsWith('.ts') && file !== 'index.ts')
  // A relative template, which the test bundler (test/helpers/bundle.ts) resolves against this folder's files.
  const modules = await Promise.all(files.map((file) => import(`./${file}`) as Promise<{ owned: OwnedObjects }>))
  return Object.assign({}, ...modules.map((module) => module.owned))
}
