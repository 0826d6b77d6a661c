import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { freePort } from './free-port.ts'

/**
 * A PgBouncer of the test's own in transaction pooling mode, in front of a PostgreSQL server: any database name is
 * passed through (`* =`), few server connections per database, so every statement of the service may land on
 * another server connection and session state shows up as failures. Run as the `postgres` OS user when the tests
 * run as root (PgBouncer refuses root).
 */

export function pgbouncerBinary(): string | null {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'])
    if (fs.existsSync(candidate)) return candidate
  return null
}

export const asRoot = () => process.getuid?.() === 0

/** A command run as the `postgres` OS user when the tests run as root, else as the test's own user. */
export function runAsPostgres(command: string, args: string[]): string {
  const [file, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`)
  return result.stdout
}

export interface PgBouncer {
  /** The pooler's address with no database: `databaseUrlFor` adds one. */
  baseUrl: string
  stop(): void
}

export interface PgBouncerOptions {
  /** A directory the postgres user may write: the configuration, log and pid file go there. */
  dir: string
  /** The server's host and port. */
  host: string
  port: number
  /** Server connections per database (PgBouncer's default_pool_size). */
  poolSize?: number
}

export async function startPgBouncer({ dir, host, port, poolSize = 3 }: PgBouncerOptions): Promise<PgBouncer> {
  const binary = pgbouncerBinary()
  if (!binary) throw new Error('pgbouncer is not installed (apt-get install --no-install-recommends pgbouncer)')
  const listenPort = await freePort()
  const ini = path.join(dir, 'pgbouncer.ini')
  const pidFile = path.join(dir, 'pgbouncer.pid')
  const logFile = path.join(dir, 'pgbouncer.log')
  fs.writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n')
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${host} port=${port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${listenPort}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 2000',
      // A dropped database's idle server connections go soon; a drop that finds them ends them anyway.
      'server_idle_timeout = 5',
      'autodb_idle_timeout = 30',
      // A server login that fails on a loaded machine is tried again in a second, not 15 (the default) while clients wait.
      'server_login_retry = 1',
      // What the service sends at start-up that PgBouncer does not know (docs/operations.md, Pooler).
      'ignore_startup_parameters = statement_timeout',
      `logfile = ${logFile}`,
      `pidfile = ${pidFile}`,
      '',
    ].join('\n'),
  )
  if (asRoot()) execFileSync('chown', ['postgres:postgres', ini, dir])
  runAsPostgres(binary, ['-d', ini])
  // The daemon writes its pid file a moment after the command returns.
  for (let attempt = 0; !fs.existsSync(pidFile); attempt++) {
    if (attempt > 100) throw new Error(`pgbouncer did not start: ${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  let pid: number | null = Number(fs.readFileSync(pidFile, 'utf8').trim())
  const baseUrl = `postgres://postgres@127.0.0.1:${listenPort}/`
  for (let attempt = 0; ; attempt++) {
    const probe = new pg.Client({ connectionString: `${baseUrl}postgres` })
    try {
      await probe.connect()
      await probe.query('select 1')
      await probe.end()
      break
    } catch (error) {
      await probe.end().catch(() => {})
      if (attempt > 100) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    baseUrl,
    stop() {
      if (pid === null) return
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        // gone already
      }
      pid = null
    },
  }
}
