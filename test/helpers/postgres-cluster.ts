import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { connectDatabase } from '../../src/db/connect.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { seedDatabase } from '../../src/seed/seed.ts'
import { serverUrl } from './databases.ts'
import { freePort } from './free-port.ts'
import { asRoot, pgbouncerBinary, runAsPostgres, startPgBouncer } from './pgbouncer.ts'

/**
 * A PostgreSQL primary with a streaming replica and a PgBouncer in transaction mode in front of the primary, all
 * of the test's own: initdb, pg_basebackup -R and pg_ctl on free ports in a temporary directory, run as the
 * `postgres` OS user when the tests run as root. The machine's own server is never touched. One per test file
 * (a few seconds); stop() removes everything.
 */

const DATABASE = 'civic'

function postgresBinaries(): string | null {
  const roots = ['/usr/lib/postgresql']
  for (const root of roots) {
    if (!fs.existsSync(root)) continue
    const versions = fs
      .readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a))
    for (const version of versions) {
      const bin = path.join(root, version, 'bin')
      if (['initdb', 'pg_ctl', 'pg_basebackup'].every((name) => fs.existsSync(path.join(bin, name)))) return bin
    }
  }
  return null
}

/**
 * Why the cluster tests cannot run here, or null when they can. Under PGlite (DATABASE_URL unset) they are out of
 * place; elsewhere missing binaries skip them unless REQUIRE_REPLICA=1, which makes them fail instead.
 */
export function clusterSkipReason(options: { pooler?: boolean } = {}): string | false {
  if (!serverUrl()) return 'PostgreSQL only: the suite runs on PGlite (DATABASE_URL unset)'
  const missing: string[] = []
  if (!postgresBinaries()) missing.push('initdb, pg_ctl and pg_basebackup (postgresql-15)')
  if (options.pooler && !pgbouncerBinary()) missing.push('pgbouncer')
  if (asRoot() && spawnSync('id', ['-u', 'postgres']).status !== 0) missing.push('the postgres OS user')
  if (missing.length === 0) return false
  if (process.env.REQUIRE_REPLICA === '1') return false // start() fails, naming what is missing
  return `needs ${missing.join(', ')} (REQUIRE_REPLICA=1 makes this a failure)`
}

export interface PostgresCluster {
  primaryUrl: string
  replicaUrl: string | null
  /** PgBouncer (pool_mode = transaction) in front of the primary. */
  poolerUrl: string | null
  /** A statement on the primary or the replica, on a connection of its own. */
  onPrimary<T extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<T[]>
  onReplica<T extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<T[]>
  stopReplica(): void
  startReplica(): void
  /** The end of each server's and PgBouncer's log, for a failure's message. */
  logs(): string
  /** Stops every server and removes the directory. */
  stop(): Promise<void>
}

export interface ClusterOptions {
  replica?: boolean
  pooler?: boolean
  /** Migrate and load the tiny seed (the tests' usual data) before the replica is made; otherwise an empty database. */
  seed?: boolean
}

export async function startCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
  const { replica = true, pooler = false, seed = true } = options
  const bin = postgresBinaries()
  if (!bin) throw new Error('initdb, pg_ctl and pg_basebackup are not installed (apt-get install postgresql-15)')
  if (pooler && !pgbouncerBinary()) throw new Error('pgbouncer is not installed (apt-get install --no-install-recommends pgbouncer)')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-cluster-'))
  fs.chmodSync(dir, 0o755)
  if (asRoot()) execFileSync('chown', ['postgres:postgres', dir])
  // The servers run as postgres (they refuse root); the test's own user otherwise.
  const run = runAsPostgres
  const tool = (name: string) => path.join(bin, name)
  const primaryDir = path.join(dir, 'primary')
  const replicaDir = path.join(dir, 'replica')
  const [primaryPort, replicaPort] = await Promise.all([freePort(), freePort()])
  const started: string[] = []
  let stopBouncer = () => {}
  const stopAll = () => {
    stopBouncer()
    for (const data of started.splice(0).reverse()) {
      try {
        run(tool('pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {
        // not running
      }
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  // A test process that ends without stop() (a failure, a timeout) still leaves nothing running.
  process.once('exit', stopAll)
  const conf = (port: number) =>
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'full_page_writes = off',
      'shared_buffers = 32MB',
      'max_connections = 100',
      'wal_level = replica',
      'max_wal_senders = 5',
      'wal_keep_size = 128MB',
      'hot_standby = on',
      // Replay is paused on purpose by the tests: never cancel a replica's reads for it.
      'max_standby_streaming_delay = -1',
      "log_min_messages = 'warning'",
      '',
    ].join('\n')
  const pgCtlStart = (data: string) => {
    run(tool('pg_ctl'), ['-D', data, '-l', path.join(dir, `${path.basename(data)}.log`), '-w', '-t', '60', 'start'])
    if (!started.includes(data)) started.push(data)
  }
  try {
    run(tool('initdb'), ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'])
    fs.appendFileSync(path.join(primaryDir, 'postgresql.conf'), conf(primaryPort))
    pgCtlStart(primaryDir)
    const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/${DATABASE}`
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${primaryPort}/postgres` })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${DATABASE}`)
    await admin.end()
    if (seed) {
      const handle = await connectDatabase({ databaseUrl: primaryUrl, dataDir: '' })
      try {
        await migrateToLatest(handle.db)
        await seedDatabase(handle.db, { scale: 'tiny', seed: 1, force: false })
      } finally {
        await handle.close()
      }
    }
    let replicaUrl: string | null = null
    if (replica) {
      run(tool('pg_basebackup'), [
        '-h',
        '127.0.0.1',
        '-p',
        String(primaryPort),
        '-U',
        'postgres',
        '-D',
        replicaDir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '--no-sync',
      ])
      fs.appendFileSync(path.join(replicaDir, 'postgresql.conf'), `port = ${replicaPort}\n`)
      pgCtlStart(replicaDir)
      replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/${DATABASE}`
    }
    let poolerUrl: string | null = null
    if (pooler) {
      // Fewer server connections than the service's pool: every statement may land on another one.
      const bouncer = await startPgBouncer({ dir, host: '127.0.0.1', port: primaryPort, poolSize: 3 })
      stopBouncer = bouncer.stop
      poolerUrl = `${bouncer.baseUrl}${DATABASE}`
    }
    const on = async (url: string, text: string, values?: unknown[]) => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        return (await client.query(text, values)).rows
      } finally {
        await client.end()
      }
    }
    return {
      primaryUrl,
      replicaUrl,
      poolerUrl,
      onPrimary: (text, values) => on(primaryUrl, text, values),
      onReplica: (text, values) => on(replicaUrl!, text, values),
      logs: () =>
        ['primary.log', 'replica.log', 'pgbouncer.log']
          .filter((name) => fs.existsSync(path.join(dir, name)))
          .map((name) => `== ${name}\n${fs.readFileSync(path.join(dir, name), 'utf8').slice(-4000)}`)
          .join('\n'),
      stopReplica: () => run(tool('pg_ctl'), ['-D', replicaDir, '-m', 'fast', '-w', 'stop']),
      startReplica: () => pgCtlStart(replicaDir),
      async stop() {
        process.removeListener('exit', stopAll)
        stopAll()
      },
    }
  } catch (error) {
    process.removeListener('exit', stopAll)
    stopAll()
    throw error
  }
}
