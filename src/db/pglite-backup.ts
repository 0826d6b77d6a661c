import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip, gunzipSync } from 'node:zlib'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'kysely'
import { connectDatabase, pgliteDirectory } from './connect.ts'
import { lockDataDir } from './data-dir-lock.ts'
import { migrations } from './migrations/index.ts'

/**
 * Backups of the embedded database (docs/operations.md, Backups and restores): its data directory as a gzipped tar,
 * taken by a process that holds the data directory's lock, so never while a server uses it. The archive is
 * PGlite's own `dumpDataDir()`, which plain `tar -xzf FILE -C DATA_DIR/pglite` unpacks as well.
 */

/** A backup or restore that cannot go ahead: one line for the operator, nothing changed. */
export class BackupRefused extends Error {
  override name = 'BackupRefused'
}

export interface DatabaseSummary {
  /** The newest migration applied, and any the code of this release does not know (a newer release's). */
  migration: string | null
  unknownMigrations: string[]
  users: number
  questions: number
  answers: number
}

export async function backupDataDir(dataDir: string, file: string): Promise<DatabaseSummary & { bytes: number }> {
  const directory = pgliteDirectory(dataDir)
  // Opening a directory without a database would make a new, empty one, and back that up.
  if (!fs.existsSync(path.join(directory, 'PG_VERSION'))) throw new BackupRefused(`backup: there is no embedded database in ${directory}`)
  // Takes the lock: refused (DataDirInUse) while a server or another command has the directory.
  const handle = await connectDatabase({ databaseUrl: null, dataDir })
  let summary: DatabaseSummary
  let tarball: Blob
  try {
    summary = await describe((text) => sql.raw(text).execute(handle.db) as Promise<{ rows: unknown[] }>)
    // Everything in the data files, so that the copy opens without replaying the write-ahead log.
    await sql`CHECKPOINT`.execute(handle.db)
    tarball = await handle.dumpDataDir!()
  } finally {
    await handle.close()
  }
  // Written beside the target and renamed at the end: a backup cut short never lies under the file's name.
  const partial = `${file}.partial`
  try {
    await pipeline(Readable.from(Buffer.from(await tarball.arrayBuffer())), createGzip(), fs.createWriteStream(partial))
    fs.renameSync(partial, file)
  } catch (error) {
    fs.rmSync(partial, { force: true })
    throw error
  }
  return { ...summary, bytes: fs.statSync(file).size }
}

export async function restoreDataDir(
  dataDir: string,
  file: string,
  options: { force: boolean },
): Promise<DatabaseSummary & { replacedTo: string | null }> {
  const archive = readArchive(file)
  const lock = lockDataDir(dataDir)
  try {
    const target = pgliteDirectory(dataDir)
    const occupied = fs.existsSync(target) && fs.readdirSync(target).length > 0
    if (occupied && !options.force)
      throw new BackupRefused(`restore: ${target} already holds a database; --force replaces it (the current one is kept aside)`)
    // Unpacked and opened beside the target first: a bad archive leaves the current database as it was.
    const staging = `${target}.restoring`
    fs.rmSync(staging, { recursive: true, force: true })
    fs.mkdirSync(staging, { recursive: true })
    let summary: DatabaseSummary
    try {
      const pglite = new PGlite({ dataDir: staging, loadDataDir: new Blob([asBytes(archive)]) })
      try {
        await pglite.waitReady
        summary = await describe((text) => pglite.query(text))
        await pglite.exec('CHECKPOINT')
      } finally {
        await pglite.close()
      }
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true })
      if (error instanceof BackupRefused) throw error
      throw new BackupRefused(`restore: ${file} is not a backup of an embedded database (${(error as Error).message})`)
    }
    let replacedTo: string | null = null
    if (occupied) {
      replacedTo = `${target}.replaced-${new Date()
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')}`
      fs.renameSync(target, replacedTo)
    } else {
      fs.rmSync(target, { recursive: true, force: true })
    }
    fs.renameSync(staging, target)
    return { ...summary, replacedTo }
  } finally {
    lock.release()
  }
}

/** The file's bytes as a tar: gunzipped when it is gzip (a backup), as it is otherwise (a plain `tar -cf`). */
function readArchive(file: string): Buffer {
  let bytes: Buffer
  try {
    bytes = fs.readFileSync(file)
  } catch (error) {
    throw new BackupRefused(`restore: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes
  try {
    return gunzipSync(bytes)
  } catch (error) {
    throw new BackupRefused(`restore: ${file} is not a backup of an embedded database (${(error as Error).message})`)
  }
}

/** The same bytes as a plain ArrayBuffer view (a Blob part), without a copy. */
const asBytes = (buffer: Buffer) => new Uint8Array(buffer.buffer as ArrayBuffer, buffer.byteOffset, buffer.length)

type Query = (text: string) => Promise<{ rows: unknown[] }>

/** What the database holds, read before it is copied or put in place; an archive of another database is refused. */
async function describe(query: Query): Promise<DatabaseSummary> {
  const rows = async <T>(text: string) => (await query(text)).rows as T[]
  const [{ present }] = await rows<{ present: boolean }>(`SELECT to_regclass('public.kysely_migration') IS NOT NULL AS present`)
  if (!present) throw new BackupRefused('the database holds no civic-survey data (it has never been migrated)')
  const applied = (await rows<{ name: string }>('SELECT name FROM kysely_migration ORDER BY name')).map((row) => row.name)
  const [counts] = await rows<{ users: number; questions: number; answers: number }>(
    `SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM questions)::int AS questions,
            ((SELECT count(*) FROM question_votes) + (SELECT count(*) FROM question_choice_votes))::int AS answers`,
  )
  return {
    migration: applied.at(-1) ?? null,
    unknownMigrations: applied.filter((name) => !(name in migrations)),
    ...counts,
  }
}
