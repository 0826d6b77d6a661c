import { spawnSync } from 'node:child_process'
import { main } from '../../src/cli.ts'
import { CLI_SCRIPT } from '../helpers/cli/command.ts'

export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * A command run by the command line's own function in this process, as `civic-survey ARGS` with env added to the
 * environment: its exit status and what it printed. It spares a process start (and, on PGlite, a second load of
 * the database engine) where the process itself is not what a test is about.
 */
export async function runCommand(args: string[], env: Record<string, string>): Promise<CommandResult> {
  const printed = { stdout: '', stderr: '' }
  const restore = (['stdout', 'stderr'] as const).map((name) => {
    const stream = process[name]
    const write = stream.write
    stream.write = function (chunk: unknown, ...rest: unknown[]): boolean {
      // What a command prints is text; the test runner's own reports from this process are binary, and pass.
      if (typeof chunk !== 'string') return (write as (...args: unknown[]) => boolean).call(stream, chunk, ...rest)
      printed[name] += chunk
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined
      if (done) process.nextTick(done)
      return true
    } as typeof stream.write
    return () => {
      stream.write = write
    }
  })
  let code: number
  try {
    code = await main(args, { ...process.env, LOG_LEVEL: 'warn', ...env })
  } finally {
    for (const undo of restore) undo()
  }
  return { code, ...printed }
}

/** `civic-survey ARGS` in a process of its own, run to its end: where the process's exit status is the point. */
export function spawnCommand(args: string[], env: Record<string, string>): CommandResult {
  const result = spawnSync(process.execPath, [CLI_SCRIPT, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 180_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}
