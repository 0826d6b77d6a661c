import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { Config } from '../config.ts'

/** A mistake in the command's arguments: the message, then the usage text, and exit status 2. */
export class UsageError extends Error {}

export interface Command {
  name: string
  /** Its lines of the usage text: a synopsis, then what it does (one line, or several continued). */
  usage: [synopsis: string, ...description: string[]][]
  /** The exit status; nothing is 0, and -1 a server that is running and exits on its own signal handlers. */
  run: (config: Config, args: string[]) => Promise<number | void>
}

/** parseArgs whose mistakes are usage errors naming the command. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  args: string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args, options, allowPositionals })
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`)
  }
}
