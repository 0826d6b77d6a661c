import { ConfigError, loadConfig, type Config } from './config.ts'
import { DataDirInUse } from './db/data-dir-lock.ts'
import { ImportError } from './import/errors.ts'
import { UsageError, type Command } from './cli/command.ts'
import { demo, migrate, serve } from './cli/serving.ts'
import { importAreas, importCensus, importPolis, importPoliticians, seed } from './cli/data.ts'
import { check, opinionGroups, recompute } from './cli/figures.ts'
import { appKey, sendDigests, user } from './cli/operations.ts'
import { backup, restore } from './cli/backup.ts'

/** Every command, in the order the usage text lists them. */
const COMMANDS: Command[] = [
  migrate,
  seed,
  appKey,
  user,
  recompute,
  check,
  backup,
  restore,
  importCensus,
  importAreas,
  importPoliticians,
  importPolis,
  opinionGroups,
  serve,
  demo,
  sendDigests,
]

const DESCRIPTION_COLUMN = 43

function usageLines({ usage }: Command): string[] {
  const indent = ' '.repeat(DESCRIPTION_COLUMN)
  return usage.flatMap(([synopsis, first, ...more]) => {
    const head = `  ${synopsis}`
    const lines = head.length + 2 <= DESCRIPTION_COLUMN ? [head.padEnd(DESCRIPTION_COLUMN) + first] : [head, indent + first]
    return [...lines, ...more.map((line) => indent + line)]
  })
}

const USAGE = [
  'Usage: civic-survey <command> [options]',
  '',
  'Commands:',
  ...COMMANDS.flatMap(usageLines),
  '',
  'Configuration comes from the environment: see README.md.',
].join('\n')

/**
 * Runs one command and returns the process's exit status (-1: a server is running, and exits on its own signal
 * handlers). bin/civic-survey.js calls it with the process's arguments; the tests call it in their own process.
 */
export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  const [name, ...args] = argv
  if (!name || name === '--help' || name === 'help') {
    console.log(USAGE)
    return name ? 0 : 1
  }
  let config: Config
  try {
    config = loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`)
      return 2
    }
    throw error
  }
  try {
    const command = COMMANDS.find((candidate) => candidate.name === name)
    if (!command) throw new UsageError(`unknown command "${name}"`)
    return (await command.run(config, args)) ?? 0
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`)
      return 2
    }
    if (error instanceof ImportError) {
      // Bad input in the file: one line, and the transaction has left the database as it was.
      console.error(`${name}: ${error.message}; nothing was imported`)
      return 2
    }
    if ((error as Error).name === 'DatabaseNotEmpty') {
      console.error((error as Error).message)
      return 1
    }
    if (error instanceof DataDirInUse) {
      // One line and EX_TEMPFAIL: the same command succeeds once the other process stops.
      console.error(error.message)
      return 75
    }
    console.error(error instanceof Error ? error.message : error)
    return 1
  }
}
