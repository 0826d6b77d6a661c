import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { serverUrl, serviceDatabaseEnv } from './databases.ts'

let counter = 0

/** An empty database for a command run in another process: a PGlite directory, or a new PostgreSQL database. */
export async function scratchDatabase(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const server = serverUrl()
  if (!server) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-cli-'))
    return { env: { DATA_DIR: dir, DATABASE_URL: '' }, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) }
  }
  const name = `civic_cli_${process.pid}_${++counter}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  return {
    env: serviceDatabaseEnv(name),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: server })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    },
  }
}

/** A data directory of the test process's own (mail written to files lands there), under the OS temp folder. */
export function scratchDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'civic-data-'))
}
