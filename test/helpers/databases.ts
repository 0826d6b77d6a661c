import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect.ts'

/**
 * Test databases: the runner migrates (and seeds) one template per kind of data before the files run;
 * each test file then starts from a copy of it, so files are fast and independent.
 */
export type TemplateName = 'empty' | 'tiny'

/** One directory per run (the runner's process id), so that runs side by side never read each other's half-written templates. */
export const templateDir = () => path.resolve('.tmp/test-templates', process.env.CIVIC_TEST_RUN ?? 'local')

export function serverUrl(): string | null {
  return process.env.DATABASE_URL || null
}

export function templateDatabaseName(name: TemplateName): string {
  return `civic_test_${process.env.CIVIC_TEST_RUN ?? 'local'}_${name}`
}

export function databaseUrlFor(base: string, database: string): string {
  const url = new URL(base)
  url.pathname = `/${database}`
  return url.toString()
}

export function templateFile(name: TemplateName): string {
  return path.join(templateDir(), `pglite-${name}.tar`)
}

let counter = 0

/** A fresh database loaded from a template: a PGlite copy in memory, or a PostgreSQL database cloned from it. */
export async function databaseFromTemplate(name: TemplateName): Promise<DatabaseHandle> {
  const server = serverUrl()
  if (!server) {
    const tarball = new Blob([fs.readFileSync(templateFile(name))])
    return connectDatabase({ databaseUrl: null, dataDir: '', inMemory: true, pgliteLoadDataDir: tarball })
  }
  const database = `${templateDatabaseName(name)}_${process.pid}_${++counter}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${database}`)
    await admin.query(`CREATE DATABASE ${database} TEMPLATE ${templateDatabaseName(name)}`)
  } finally {
    await admin.end()
  }
  const handle = await connectDatabase({ databaseUrl: databaseUrlFor(server, database), dataDir: '', poolSize: 8 })
  return {
    ...handle,
    close: async () => {
      await handle.close()
      const cleanup = new pg.Client({ connectionString: server })
      await cleanup.connect()
      try {
        await dropWhenReleased(cleanup, database)
      } finally {
        await cleanup.end()
      }
    },
  }
}

/**
 * The pool's end() can resolve while its sockets are still closing; a forced drop then kills them mid-close and
 * the test process sees "terminating connection due to administrator command". Wait for them instead.
 */
async function dropWhenReleased(client: pg.Client, database: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await client.query(`DROP DATABASE IF EXISTS ${database}`)
      return
    } catch (error) {
      if ((error as { code?: string }).code !== '55006') throw error // 55006: still accessed by other users
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
}
