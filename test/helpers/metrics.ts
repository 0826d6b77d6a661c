import fs from 'node:fs'
import { votersWithTokens, type Voter } from './voters.ts'
import { commandDatabase, type CommandDatabase } from './databases.ts'

/** One sample of Prometheus's text format: `name{label="value",…} value`. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** The samples of a scrape, and the content type it came with. */
export class Scrape {
  constructor(
    readonly samples: Sample[],
    readonly contentType: string,
  ) {}

  /** The samples of `name` whose labels include `labels`. */
  matching(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
  }

  /** The sum of those samples; 0 when there are none. */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((total, s) => total + s.value, 0)
  }

  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.matching(name, labels).length > 0
  }
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Parses the text format (version 0.0.4): comments skipped, label values unescaped. */
export function parseMetrics(text: string, contentType = ''): Scrape {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line)
    if (!match) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL))
      labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    const raw = match[3]
    samples.push({ name: match[1], labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) })
  }
  return new Scrape(samples, contentType)
}

export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url)
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
  return parseMetrics(await response.text(), response.headers.get('content-type') ?? '')
}

/**
 * The TCP ports a process listens on, read from /proc (its sockets' inodes, and the kernel's table of listening
 * sockets): which ports a server opened, whatever they are.
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>()
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode) inodes.add(inode)
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      // local_address rem_address st … inode: state 0A is LISTEN
      if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9])) continue
      ports.add(Number.parseInt(fields[1].split(':')[1], 16))
    }
  }
  return [...ports].sort((a, b) => a - b)
}

export type { Voter } from './voters.ts'

/**
 * A database of its own copied from the tiny seed, with voters holding tokens, likert questions open to answers, the
 * voters' current answers to them (so a test knows which of its answers are first ones), and a multiple-choice
 * question (a likert answer to it is refused).
 */
export interface AnsweringDatabase {
  database: CommandDatabase
  voters: Voter[]
  likert: number[]
  mcq: number
  /** a collection, whose opinion groups no one has asked for yet */
  collection: number
  /** `voter:question` already answered in the seed */
  answered: Set<string>
}

export async function answeringDatabase(voterCount: number, questionCount: number): Promise<AnsweringDatabase> {
  const database = await commandDatabase('tiny')
  return database.opened(async ({ db }) => {
    const voters = await votersWithTokens(db, voterCount, 'metrics test')
    const open = (subtype: 'likert' | 'mcq') =>
      db
        .selectFrom('questions')
        .select('id')
        .where('subtype', '=', subtype)
        .where('publish', '=', true)
        .where((eb) => eb.or([eb('start_at', 'is', null), eb('start_at', '<=', new Date())]))
        .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', new Date(Date.now() + 3_600_000))]))
        .orderBy('id')
    const likert = (await open('likert').limit(questionCount).execute()).map((q) => q.id)
    const mcq = (await open('mcq').limit(1).executeTakeFirstOrThrow()).id
    const seeded = await db
      .selectFrom('question_votes')
      .select(['user_id', 'question_id'])
      .where(
        'user_id',
        'in',
        voters.map((v) => v.id),
      )
      .where('question_id', 'in', likert)
      .execute()
    const answered = new Set(seeded.map((vote) => `${vote.user_id}:${vote.question_id}`))
    const collection = (await db.selectFrom('question_collections').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow()).id
    return { database, voters, likert, mcq, collection, answered }
  })
}

/** A likert answer through the API; its status. */
export async function answer(base: string, question: number, value: unknown, token?: string): Promise<number> {
  const response = await fetch(`${base}/api/question_votes/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) },
    body: JSON.stringify({ object_id: question, value }),
  })
  await response.arrayBuffer()
  return response.status
}

/** Debian's Prometheus (package `prometheus`); PROMETHEUS_BIN names another. */
export const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus'

/** A test's `skip` when Prometheus is absent: CI installs it and sets REQUIRE_PROMETHEUS=1, so there it fails instead. */
export const prometheusSkip = (): string | false =>
  fs.existsSync(PROMETHEUS) || process.env.REQUIRE_PROMETHEUS === '1'
    ? false
    : `no Prometheus at ${PROMETHEUS} (apt-get install prometheus; REQUIRE_PROMETHEUS=1 makes this a failure)`
