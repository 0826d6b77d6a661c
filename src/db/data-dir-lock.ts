import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * One process per embedded data directory. PGlite keeps its own caches of the files, so a second process on the
 * same directory reads stale data and, writing, corrupts it. The lock is a file naming its holder, created
 * atomically; a holder that died without removing it (SIGKILL, power cut) leaves a stale lock that the next
 * process takes over.
 */

export const LOCK_FILE = 'pglite.lock'
/** A holder in another container or machine cannot be asked whether it lives: it touches the file instead. */
const HEARTBEAT_MS = 10_000
const STALE_AFTER_MS = 30_000

interface Holder {
  pid: number
  hostname: string
  /** What the holder runs, for the refusal message ("civic-survey serve"). */
  command: string
  /** Kernel boot and pid namespace: where the pid means the same process as here. Null off Linux. */
  machine: string | null
  /** The holder's start time in clock ticks since boot, so a reused pid is not taken for the holder. */
  started: number | null
  acquired_at: string
}

export class DataDirInUse extends Error {
  override name = 'DataDirInUse'
  constructor(
    readonly directory: string,
    readonly holder: Holder,
  ) {
    const where = holder.hostname === os.hostname() ? '' : ` on ${holder.hostname}`
    super(
      `civic-survey: the embedded database in ${directory} is in use by process ${holder.pid}${where} (${holder.command}); ` +
        'stop it first, or set DATABASE_URL to share a PostgreSQL server',
    )
  }
}

export interface DataDirLock {
  /** Removes the lock if it is still this process's. Idempotent. */
  release(): void
}

/** Takes the data directory's lock, taking over a stale one; throws DataDirInUse while a live process holds it. */
export function lockDataDir(dataDir: string): DataDirLock {
  const directory = path.resolve(dataDir)
  fs.mkdirSync(directory, { recursive: true })
  const file = path.join(directory, LOCK_FILE)
  const record = JSON.stringify(ownRecord())
  for (let attempt = 0; attempt < 10; attempt++) {
    if (publish(file, record)) return holdLock(file, record)
    const text = readOrNull(file)
    if (text === null) continue // released meanwhile
    const holder = parseHolder(text)
    if (holder && holderAlive(holder, file)) throw new DataDirInUse(directory, holder)
    removeStale(file, text)
  }
  throw new Error(`civic-survey: could not take the lock ${file}; other processes keep taking it`)
}

/** Writes the record beside the lock, then links it into place: the lock never exists half written. */
function publish(file: string, record: string): boolean {
  const draft = `${file}.${process.pid}.new`
  fs.writeFileSync(draft, record)
  try {
    fs.linkSync(draft, file)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    fs.rmSync(draft, { force: true })
  }
}

/**
 * Moves the stale lock aside first: if another process replaced it with a live lock since we read it, the move
 * caught that one instead, and it is put back.
 */
function removeStale(file: string, staleText: string): void {
  const aside = `${file}.${process.pid}.stale`
  try {
    fs.renameSync(file, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  if (readOrNull(aside) !== staleText) {
    try {
      fs.linkSync(aside, file)
    } catch {
      // Yet another process took the lock meanwhile; the next attempt reads whoever holds it now.
    }
  }
  fs.rmSync(aside, { force: true })
}

function holdLock(file: string, record: string): DataDirLock {
  const heartbeat = setInterval(() => {
    const now = new Date()
    try {
      fs.utimesSync(file, now, now)
    } catch {
      // The directory went away; nothing left to guard.
    }
  }, HEARTBEAT_MS)
  heartbeat.unref()
  const release = () => {
    clearInterval(heartbeat)
    process.removeListener('exit', release)
    if (readOrNull(file) === record) fs.rmSync(file, { force: true })
  }
  // A process that exits without closing the database (an error, process.exit) leaves no lock behind.
  process.on('exit', release)
  return { release }
}

function holderAlive(holder: Holder, file: string): boolean {
  const machine = machineId()
  if (holder.machine !== null && holder.machine === machine) {
    if (!pidExists(holder.pid)) return false
    return holder.started === null || startTicks(holder.pid) === holder.started
  }
  if (holder.machine === null && machine === null && holder.hostname === os.hostname()) return pidExists(holder.pid)
  try {
    return Date.now() - fs.statSync(file).mtimeMs < STALE_AFTER_MS
  } catch {
    return false
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function ownRecord(): Holder {
  const script = process.argv[1] ? path.basename(process.argv[1]).replace(/\.[cm]?[jt]s$/, '') : 'node'
  const command = [script, ...process.argv.slice(2, 3)].join(' ')
  return {
    pid: process.pid,
    hostname: os.hostname(),
    command,
    machine: machineId(),
    started: startTicks(process.pid),
    acquired_at: new Date().toISOString(),
  }
}

function machineId(): string | null {
  try {
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    return `${boot} ${fs.readlinkSync('/proc/self/ns/pid')}`
  } catch {
    return null
  }
}

/** Field 22 of /proc/<pid>/stat; the command name before it may hold spaces, so count from its closing ')'. */
function startTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[19])
  } catch {
    return null
  }
}

function parseHolder(text: string): Holder | null {
  try {
    const holder = JSON.parse(text) as Holder
    return Number.isInteger(holder.pid) ? holder : null
  } catch {
    return null
  }
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}
