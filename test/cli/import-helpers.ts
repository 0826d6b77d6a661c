import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Database } from '../../src/db/database.ts'
import type { Kysely } from 'kysely'
import { commandDatabase } from '../helpers/databases.ts'
import { runCommand, spawnCommand } from './run-command.ts'

export const FIXTURES = path.resolve('test/fixtures/import')

/**
 * A scratch database, migrated, that the command line runs on as an operator would run it: its function in this
 * process (`run`), or in a process of its own where the exit status is the point (`spawned`).
 */
export async function importScratch() {
  const scratch = await commandDatabase('empty')
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-import-'))
  return {
    run: (args: string[]) => runCommand(args, scratch.env),
    spawned: (args: string[]) => spawnCommand(args, scratch.env),
    /** Opens the scratch database for a look (the command must not run meanwhile: PGlite has one owner). */
    query: <T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T> => scratch.opened((handle) => work(handle.db)),
    /** Writes a file for a command to read; returns its path. */
    file(name: string, text: string): string {
      const file = path.join(files, name)
      fs.writeFileSync(file, text)
      return file
    },
    async cleanup() {
      fs.rmSync(files, { recursive: true, force: true })
      await scratch.cleanup()
    },
  }
}

/** Every row of a table in id order, without the timestamps a re-import may move. */
export async function snapshot(db: Kysely<Database>, table: 'census_data' | 'areas' | 'politicians'): Promise<unknown[]> {
  const rows = await db.selectFrom(table).selectAll().orderBy('id').execute()
  return rows.map((row) => ({ ...row, created_at: undefined, modified_at: undefined }))
}
