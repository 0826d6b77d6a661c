import type { Config } from '../config.ts'
import { redactedUrl } from '../db/connect.ts'
import type { DatabaseSummary } from '../db/pglite-backup.ts'
import { parseCommandArgs, UsageError, type Command } from './command.ts'

/**
 * Backups of the embedded database. A PostgreSQL server is backed up with its own tools, which do it while the
 * service runs (pg_dump's snapshot) and which operators already drive: the commands only say so.
 */
export const backup: Command = {
  name: 'backup',
  usage: [
    [
      'backup FILE',
      'embedded database: copy it to FILE (a gzipped tar) while no server',
      'runs on DATA_DIR; a PostgreSQL server: use pg_dump (docs/operations.md)',
    ],
  ],
  async run(config, args) {
    const file = oneFile('backup', args, {}).file
    if (config.databaseUrl) return useServerTools(config, 'backup')
    const { backupDataDir } = await import('../db/pglite-backup.ts')
    const started = Date.now()
    const summary = await backupDataDir(config.dataDir, file)
    console.error(
      `backed up the embedded database in ${config.dataDir} to ${file}: ${(summary.bytes / 1e6).toFixed(1)} MB, ${described(summary)}, ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    )
  },
}

export const restore: Command = {
  name: 'restore',
  usage: [
    [
      'restore FILE [--force]',
      "embedded database: put a backup in DATA_DIR's place while no server",
      'runs on it; --force replaces a database there (kept aside);',
      'a PostgreSQL server: use pg_restore (docs/operations.md)',
    ],
  ],
  async run(config, args) {
    const { file, values } = oneFile('restore', args, { force: { type: 'boolean', default: false } })
    if (config.databaseUrl) return useServerTools(config, 'restore')
    const { restoreDataDir } = await import('../db/pglite-backup.ts')
    const summary = await restoreDataDir(config.dataDir, file, { force: values.force === true })
    if (summary.replacedTo) console.error(`the database that was there is kept in ${summary.replacedTo}`)
    if (summary.unknownMigrations.length > 0)
      console.error(
        `warning: the backup was made by a newer release (migrations unknown here: ${summary.unknownMigrations.join(', ')}); ` +
          'serve it with that release',
      )
    console.error(`restored ${file} into ${config.dataDir}: ${described(summary)}; run \`civic-survey check\` before serving it`)
  },
}

function oneFile<O extends Record<string, { type: 'boolean'; default: boolean }>>(command: string, args: string[], options: O) {
  const { values, positionals } = parseCommandArgs(command, args, options, true)
  if (positionals.length !== 1) throw new UsageError(`${command} needs one FILE`)
  return { file: positionals[0], values }
}

function described(summary: DatabaseSummary): string {
  return `${summary.users} users, ${summary.questions} questions, ${summary.answers} answers, newest migration ${summary.migration ?? 'none'}`
}

/** One line, and the status of a usage error: nothing was done. */
function useServerTools(config: Config, command: 'backup' | 'restore'): number {
  const where = redactedUrl(config.databaseDirectUrl ?? config.databaseUrl!)
  console.error(
    command === 'backup'
      ? `backup: ${where} is a PostgreSQL server; back it up with pg_dump -Fc (while the service runs), see docs/operations.md, Backups and restores`
      : `restore: ${where} is a PostgreSQL server; restore into a new database with pg_restore --no-owner, then run migrate and check, see docs/operations.md, Backups and restores`,
  )
  return 2
}
