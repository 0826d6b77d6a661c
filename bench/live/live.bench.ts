import { fork, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { connectDatabase } from '../../src/db/connect.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { residentMiB, sampleResidentPeak, startService } from '../load/processes.ts'
import { benchDatabase, percentile, round } from '../shared.ts'

/**
 * npm run bench -- live [--subscribers N] [--votes N] [--connections N] [--clients N] [--port P]
 * N subscribers follow one question's live stream (spread over --clients processes) while N distinct people
 * vote on it as fast as the service takes them over --connections connections; then the same subscribers on a
 * bare server that writes one event to all of them (the fan-out limit). Reports how long after the last vote
 * each subscriber had the final figures, how many events each got, and the service's memory.
 */
export async function runLiveBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      subscribers: { type: 'string', default: '10000' },
      votes: { type: 'string', default: '2000' },
      connections: { type: 'string', default: '16' },
      clients: { type: 'string', default: '2' },
      port: { type: 'string', default: '8741' },
    },
  })
  const subscribers = Number(values.subscribers)
  const votes = Number(values.votes)
  const connections = Number(values.connections)
  const clients = Number(values.clients)
  const loadStart = os.loadavg().map((l) => round(l, 2))

  const { url } = await benchDatabase('civic_bench_live', true)
  const handle = await connectDatabase({ databaseUrl: url, dataDir: '', poolSize: 2 })
  let question: number
  let quiet: number
  let tokens: string[]
  try {
    await migrateToLatest(handle.db)
    const author = await handle.db
      .insertInto('users')
      .values({ username: 'live-author', email: 'live-author@example.net' })
      .returning('id')
      .executeTakeFirstOrThrow()
    const ask = async (slug: string) =>
      (
        await handle.db
          .insertInto('questions')
          .values({ user_id: author.id, question: `Should the city go car-free on ${slug}?`, slug, subtype: 'likert', publish: true })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id
    question = await ask('sundays')
    // The same surge on a question nobody follows: what the votes cost without subscribers.
    quiet = await ask('saturdays')
    const voters = await sql<{ id: number }>`
      INSERT INTO users (username, email) SELECT 'live-voter-' || n, 'live-voter-' || n || '@example.net' FROM generate_series(1, ${votes}) AS n
      RETURNING id`.execute(handle.db)
    tokens = voters.rows.map(() => newToken())
    await handle.db
      .insertInto('auth_tokens')
      .values(voters.rows.map((row, i) => ({ user_id: row.id, key_hash: hashSecret(tokens[i]), name: 'bench-live' })))
      .execute()
    await sql`CREATE TABLE bench_complete ()`.execute(handle.db)
  } finally {
    await handle.close()
  }

  const perClient = Math.ceil(subscribers / clients)
  const marker = `"direct_vote_count":${votes},`

  // The service.
  const service = await startService({ DATABASE_URL: url, LIVE_MAX_SUBSCRIBERS: String(subscribers + 1000) }, Number(values.port))
  const pid = service.process.pid!
  const peak = sampleResidentPeak(pid)
  const rssIdle = residentMiB(pid)
  const quietStarted = Date.now()
  await surge(service.url, quiet, tokens, connections)
  const quietSeconds = (Date.now() - quietStarted) / 1000
  const live = `${service.url}/api/questions/${question}/live/`
  const fleet = startClients(clients)
  const connectStarted = Date.now()
  const opened = await Promise.all(fleet.map((client) => ask<{ ready: number; failed: number }>(client, { open: live, count: perClient })))
  const connectSeconds = (Date.now() - connectStarted) / 1000
  const rssConnected = residentMiB(pid)
  for (const client of fleet) client.send({ watch: marker })
  const surgeStarted = Date.now()
  const statuses = await surge(service.url, question, tokens, connections)
  const lastVoteAt = Date.now()
  const watched = merge(await Promise.all(fleet.map((client) => ask<Watched>(client, { report: true, waitMs: 10_000 }))))
  const finalEvent = await firstEvent(live)
  const rssPeak = peak()
  for (const client of fleet) client.send({ close: true })
  await service.stop()

  // The fan-out limit: the same subscribers, the same final event, written by a bare server.
  const limit = fork(new URL('./fanout-limit-server.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'] })
  const { port } = await next<{ port: number }>(limit)
  const limitFleet = startClients(clients)
  const limitOpened = await Promise.all(
    limitFleet.map((client) => ask<{ ready: number; failed: number }>(client, { open: `http://127.0.0.1:${port}/`, count: perClient })),
  )
  for (const client of limitFleet) client.send({ watch: marker })
  // The watch reaches the subscriber processes before the broadcast: each answers the next message in order.
  await Promise.all(limitFleet.map((client) => ask(client, { report: true, waitMs: 0 })))
  limit.send({ broadcast: finalEvent })
  const { sentAt } = await next<{ sentAt: number }>(limit)
  const limitWatched = merge(await Promise.all(limitFleet.map((client) => ask<Watched>(client, { report: true, waitMs: 10_000 }))))
  for (const client of limitFleet) client.send({ close: true })
  limit.kill('SIGTERM')

  const reached = watched.arrivals.filter((at): at is number => at !== null)
  const after = reached.map((at) => at - lastVoteAt)
  const surgeSeconds = (lastVoteAt - surgeStarted) / 1000
  const limitAfter = limitWatched.arrivals.filter((at): at is number => at !== null).map((at) => at - sentAt)
  const report: LiveReport = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
    subscribers: opened.reduce((sum, o) => sum + o.ready, 0),
    refused: opened.reduce((sum, o) => sum + o.failed, 0),
    connect_s: round(connectSeconds, 2),
    votes,
    votes_accepted: statuses.filter((status) => status === 201 || status === 200).length,
    connections,
    surge_s: round(surgeSeconds, 2),
    votes_per_s: round(votes / surgeSeconds, 1),
    votes_per_s_unfollowed: round(votes / quietSeconds, 1),
    reached_final: reached.length,
    final_after_last_vote_ms: { p50: percentile(after, 50), p99: percentile(after, 99), max: Math.max(...after) },
    events_per_subscriber: {
      mean: round(watched.events.reduce((a, b) => a + b, 0) / watched.events.length, 1),
      max: Math.max(...watched.events),
    },
    events_per_s_per_subscriber: round(Math.max(...watched.events) / (surgeSeconds + Math.max(...after) / 1000), 2),
    limit_subscribers: limitOpened.reduce((sum, o) => sum + o.ready, 0),
    limit_fanout_ms: { p50: percentile(limitAfter, 50), p99: percentile(limitAfter, 99), max: Math.max(...limitAfter) },
    ratio_max: round(Math.max(...after) / Math.max(1, Math.max(...limitAfter)), 2),
    rss_mib: { idle: round(rssIdle ?? 0, 1), connected: round(rssConnected ?? 0, 1), peak: round(rssPeak ?? 0, 1) },
    load_average_start: loadStart,
    load_average_end: os.loadavg().map((l) => round(l, 2)),
  }
  fs.mkdirSync('bench/results', { recursive: true })
  fs.writeFileSync(`bench/results/live-${report.date.slice(0, 19).replace(/:/g, '-')}.json`, JSON.stringify(report, null, 2))
  const table = markdown(report)
  console.log(table)
  writeLatest('docs/performance.md', table)
}

interface Spread {
  p50: number
  p99: number
  max: number
}

interface LiveReport {
  date: string
  node: string
  cpus: string
  subscribers: number
  refused: number
  connect_s: number
  votes: number
  votes_accepted: number
  connections: number
  surge_s: number
  votes_per_s: number
  votes_per_s_unfollowed: number
  reached_final: number
  final_after_last_vote_ms: Spread
  events_per_subscriber: { mean: number; max: number }
  events_per_s_per_subscriber: number
  limit_subscribers: number
  limit_fanout_ms: Spread
  ratio_max: number
  rss_mib: { idle: number; connected: number; peak: number }
  load_average_start: number[]
  load_average_end: number[]
}

interface Watched {
  arrivals: (number | null)[]
  events: number[]
}

function startClients(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    fork(new URL('./subscribers.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'] }),
  )
}

function next<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve) => child.once('message', (message) => resolve(message as T)))
}

function ask<T>(child: ChildProcess, message: unknown): Promise<T> {
  const answer = next<T>(child)
  child.send(message as never)
  return answer
}

function merge(parts: Watched[]): Watched {
  return { arrivals: parts.flatMap((part) => part.arrivals), events: parts.flatMap((part) => part.events) }
}

/** Every voter answers once, `connections` at a time, as fast as the service takes them. */
async function surge(base: string, question: number, tokens: string[], connections: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections })
  const statuses: number[] = []
  let nextVoter = 0
  const post = (token: string, value: number) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ object_id: question, value })
      const request = http.request(
        `${base}/api/question_votes/`,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Token ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
        },
      )
      request.on('error', reject)
      request.end(body)
    })
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (nextVoter < tokens.length) {
        const i = nextVoter++
        statuses.push(await post(tokens[i], 1 + (i % 5)))
      }
    }),
  )
  agent.destroy()
  return statuses
}

/** The first event a new subscriber gets, as it came over the wire. */
function firstEvent(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, (response) => {
      let buffer = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        buffer += chunk
        const blocks = buffer.split('\n\n')
        const event = blocks.slice(0, -1).find((block) => block.includes('\ndata: '))
        if (event !== undefined) {
          request.destroy()
          resolve(`${event}\n\n`)
        }
      })
    })
    request.on('error', reject)
  })
}

function markdown(report: LiveReport): string {
  const ms = (figures: Spread) => `${figures.p50} / ${figures.p99} / ${figures.max}`
  return [
    `${report.date.slice(0, 16).replace('T', ' ')} UTC, PostgreSQL, ${report.cpus}, Node ${report.node}; load average ` +
      `${report.load_average_start.join(', ')} at the start, ${report.load_average_end.join(', ')} at the end.`,
    '',
    '| measure | service | fan-out limit |',
    '| --- | ---: | ---: |',
    `| subscribers holding the stream (refused) | ${report.subscribers} (${report.refused}), connected in ${report.connect_s} s | ${report.limit_subscribers} |`,
    `| votes (accepted), connections | ${report.votes} (${report.votes_accepted}), ${report.connections} | |`,
    `| surge: duration, votes/s (the same votes on a question nobody follows) | ${report.surge_s} s, ${report.votes_per_s} (${report.votes_per_s_unfollowed}) | |`,
    `| subscribers that saw the final figures | ${report.reached_final} | |`,
    `| final figures after the last vote (limit: after the write), p50 / p99 / max ms | ${ms(report.final_after_last_vote_ms)} | ${ms(report.limit_fanout_ms)} |`,
    `| ratio of the slowest subscriber to the limit's | ${report.ratio_max}× | 1× |`,
    `| events per subscriber during the surge: mean, max; max per second | ${report.events_per_subscriber.mean}, ${report.events_per_subscriber.max}; ${report.events_per_s_per_subscriber} | |`,
    `| service RSS MiB: idle, with the subscribers, peak | ${report.rss_mib.idle}, ${report.rss_mib.connected}, ${report.rss_mib.peak} | |`,
  ].join('\n')
}

const START = '<!-- live:latest:start -->'
const END = '<!-- live:latest:end -->'

function writeLatest(doc: string, table: string): void {
  const text = fs.readFileSync(doc, 'utf8')
  const start = text.indexOf(START)
  const end = text.indexOf(END)
  if (start < 0 || end < start) return
  fs.writeFileSync(doc, `${text.slice(0, start)}${START}\n${table}\n${END}${text.slice(end + END.length)}`)
}
