import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect.ts'
import { preparesStatementsBehind } from '../../src/config.ts'

/**
 * Test databases: the runner migrates (and seeds) one template per kind of data before the files run;
 * each test file then starts from a copy of it, so files are fast and independent.
 */
export type TemplateName = 'empty' | 'tiny'
/** PGlite only, for the commands that start from nothing: a database made (initdb) but not migrated. */
export type DataDirTemplateName = TemplateName | 'blank'

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

/**
 * Where the service (app or command) reaches a test database. With `TEST_POOLER=1` the runner puts a PgBouncer in
 * transaction mode in front of the server (`CIVIC_TEST_POOLER_URL`): the service's pool goes through it and its one
 * listening connection straight to the server (DATABASE_DIRECT_URL), as in production behind a pooler.
 */
export function serviceDatabaseEnv(database: string): { DATABASE_URL: string; DATABASE_DIRECT_URL?: string } {
  const direct = databaseUrlFor(serverUrl()!, database)
  const pooler = process.env.CIVIC_TEST_POOLER_URL
  return pooler ? { DATABASE_URL: databaseUrlFor(pooler, database), DATABASE_DIRECT_URL: direct } : { DATABASE_URL: direct }
}

export function templateFile(name: DataDirTemplateName): string {
  return path.join(templateDir(), `pglite-${name}.tar`)
}

let counter = 0

/**
 * A PGlite data directory of its own (DATA_DIR, under the OS temp folder) holding a copy of a template, for a
 * process that opens the database from disk: a server or a command. Unpacking the template takes a fraction of a
 * second where making a new database on disk takes several, and migrating it several more.
 */
export function dataDirFromTemplate(name: DataDirTemplateName): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-data-'))
  // connectDatabase keeps the database itself in DATA_DIR/pglite; the template is that directory packed (tar).
  fs.mkdirSync(path.join(dir, 'pglite'))
  execFileSync('tar', ['-xf', templateFile(name), '-C', path.join(dir, 'pglite')], { stdio: ['ignore', 'ignore', 'pipe'] })
  return dir
}

export interface CommandDatabase {
  /** What to give a command or server run on it: DATA_DIR or DATABASE_URL. */
  env: Record<string, string>
  /** Opens it here for `work` and closes it after: no command may run meanwhile, as PGlite has one owner. */
  opened<T>(work: (handle: DatabaseHandle) => Promise<T>): Promise<T>
  cleanup(): Promise<void>
}

/**
 * A database of its own for commands and servers run on it, copied from a template: a PGlite data directory, or a
 * PostgreSQL database ('blank': a new, empty one).
 */
export async function commandDatabase(name: DataDirTemplateName): Promise<CommandDatabase> {
  const server = serverUrl()
  if (!server) {
    const dir = dataDirFromTemplate(name)
    const env = { DATA_DIR: dir, DATABASE_URL: '' }
    return { env, opened: (work) => openedAt(env, work), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) }
  }
  const database = `civic_cmd_${process.pid}_${++counter}`
  const onServer = async (statement: string) => {
    const client = new pg.Client({ connectionString: server })
    await client.connect()
    try {
      await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
      if (statement) await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await onServer(`CREATE DATABASE ${database}${name === 'blank' ? '' : ` TEMPLATE ${templateDatabaseName(name)}`}`)
  const env: Record<string, string> = serviceDatabaseEnv(database)
  return { env, opened: (work) => openedAt(env, work), cleanup: () => onServer('') }
}

async function openedAt<T>(env: Record<string, string>, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await connectDatabase({
    databaseUrl: env.DATABASE_URL || null,
    directUrl: env.DATABASE_DIRECT_URL,
    dataDir: env.DATA_DIR ?? '',
  })
  try {
    return await work(handle)
  } finally {
    await handle.close()
  }
}

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
  const urls = serviceDatabaseEnv(database)
  // Prepared statements as the service sends them (not through the pooler of TEST_POOLER=1).
  const handle = await connectDatabase({
    databaseUrl: urls.DATABASE_URL,
    directUrl: urls.DATABASE_DIRECT_URL,
    dataDir: '',
    poolSize: 8,
    preparedStatements: preparesStatementsBehind(urls.DATABASE_URL, urls.DATABASE_DIRECT_URL),
  })
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
  // Behind the pooler the server connections left are PgBouncer's idle ones, not the test's: end them at once.
  const attempts = process.env.CIVIC_TEST_POOLER_URL ? 0 : 50
  for (let attempt = 0; attempt < attempts; attempt++) {
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
