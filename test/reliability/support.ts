import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import pg from 'pg'
import { CLI_SCRIPT } from '../helpers/cli/command.ts'
import { databaseUrlFor, serverUrl, serviceDatabaseEnv, templateDatabaseName } from '../helpers/databases.ts'
import { freePort } from '../helpers/free-port.ts'
import { scratchDataDir } from '../helpers/scratch.ts'

/** Limits no test of this folder comes near: they are about the database, not about abuse. */
export const HIGH_LIMITS = Object.fromEntries(
  ['ANONYMOUS', 'APP_KEY', 'USER', 'IP', 'SENSITIVE', 'SIGN_IN', 'SIGN_IN_ACCOUNT', 'SIGN_UP'].map((name) => [
    `RATE_LIMIT_${name}`,
    '1000000',
  ]),
)

export { freePort }

/** Waits for a condition the test brings about, failing with `what` if it never holds. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** A statement on the PostgreSQL server's administrative database, outside the service's pool. */
export async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl()! })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

let counter = 0

/**
 * A database of its own, copied from the seeded test template: its URL on the server itself (`url`, for the test's
 * own clients and the tests about the server), and what a service process is given (`service`: through the suite's
 * PgBouncer when there is one, docs/testing.md).
 */
export async function freshDatabase(): Promise<{ name: string; url: string; service: Record<string, string>; drop(): Promise<void> }> {
  const name = `civic_outage_${process.pid}_${++counter}`
  await onServer(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseName('tiny')}`)
  })
  return {
    name,
    url: databaseUrlFor(serverUrl()!, name),
    service: serviceDatabaseEnv(name),
    drop: () => onServer(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  }
}

/** Terminates every backend connected to the database (or the one pid); returns how many. */
export async function terminateBackends(database: string, pid?: number): Promise<number> {
  return onServer(async (client) => {
    const { rows } = await client.query(
      'select count(*) filter (where pg_terminate_backend(pid, 5000)) as killed from pg_stat_activity where datname = $1 and ($2::int is null or pid = $2)',
      [database, pid ?? null],
    )
    return Number(rows[0].killed)
  })
}

/**
 * A TCP relay in front of the PostgreSQL server. `freeze()` makes the connections open at that moment stop
 * delivering the server's answers, as a half-dead network path does; connections made later pass.
 */
export async function relay(target: URL, port = 0): Promise<{ port: number; freeze(): void; close(): Promise<void> }> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>()
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname)
    const pair = { client, upstream }
    pairs.add(pair)
    for (const socket of [client, upstream]) socket.on('error', () => {})
    client.pipe(upstream)
    upstream.pipe(client)
    client.on('close', () => {
      upstream.destroy()
      pairs.delete(pair)
    })
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze() {
      for (const { client, upstream } of pairs) {
        upstream.unpipe(client)
        upstream.pause()
        upstream.removeAllListeners('close')
      }
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy()
        upstream.destroy()
      }
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

export interface ServeProcess {
  child: ChildProcess
  output(): string
  exited: Promise<number | null>
}

/** `civic-survey serve` in a process of its own. */
export function serve(env: Record<string, string>): ServeProcess {
  let text = ''
  const child = spawn(process.execPath, [CLI_SCRIPT, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', DATA_DIR: scratchDataDir(), ...HIGH_LIMITS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (chunk) => (text += chunk))
  child.stderr!.on('data', (chunk) => (text += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => text, exited }
}

/** `serve` on a free port, once it answers the questions listing. */
export async function serveUntilReady(env: Record<string, string>): Promise<{ server: ServeProcess; base: string }> {
  const port = await freePort()
  const server = serve({ ...env, PORT: String(port) })
  const base = `http://127.0.0.1:${port}`
  const answers = async () => (await fetch(`${base}/api/questions/?page_size=1`).catch(() => null))?.status === 200
  await until(answers, `serve answers on ${base}\n${server.output()}`, 60_000)
  return { server, base }
}

/** A CLI command run to its end. */
export function cli(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, [CLI_SCRIPT, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 180_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}
