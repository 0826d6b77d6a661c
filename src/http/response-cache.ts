import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { DataChangeListener } from '../db/data-changes.ts'
import { keptAnswerLookedUp, keptAnswersInvalidated } from '../core/metrics.ts'
import { lightHook, lightParsingHook, lightSendHook } from './hooks.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's answer to anonymous GETs depends only on the URL and the data: kept in memory until data changes. */
    cachedForAnyone?: boolean
  }
  interface FastifyInstance {
    responseCache: ResponseCache
  }
}

export interface ResponseCacheOptions {
  /** Memory for kept answers (bytes of their bodies); 0 keeps none. */
  maxBytes: number
  /** How long after a change a kept answer may still be served while the one request rebuilding it runs. */
  graceMs: number
  /** Rebuilt at least this often: answers that depend on the clock (ages, closing dates) follow it. */
  maxAgeMs: number
}

interface Entry {
  body: Buffer
  /** A piece's own value (kept as built, so reading it allocates nothing), with body empty. */
  value?: unknown
  /** Bytes it holds (a piece's are its JSON's length). */
  size: number
  contentType: string
  /** The change count when the request that built it started: it shows every change announced before. */
  generation: number
  builtAt: number
}

interface Fill {
  key: string
  generation: number
  promise: Promise<Entry | null>
  done: ((entry: Entry | null) => void) | null
}

interface Memo {
  value: Promise<unknown>
  /** Bytes it holds once built (counted with the kept answers' against RESPONSE_CACHE_MB); 0 for small values. */
  size: number
  generation: number
  builtAt: number
  settled: boolean
  /** While this one is built: the value it replaces, when that value went stale, and the change count it shows. */
  previous?: { value: Promise<unknown>; since: number; generation: number }
}

const EMPTY = Buffer.alloc(0)
const CHANGE_TIMES = 4096
const MEMO_ENTRIES = 10_000
/** A request waits this long at most for another to rebuild an answer, then builds its own. */
const LONGEST_WAIT_MS = 10_000
const FILL = Symbol('response cache fill')

/**
 * Anonymous answers kept in memory, dropped by the data-change notices every process receives (exactness across
 * processes) and by the process's own writes at once (exactness for their author). Each change bumps a count; an
 * answer built before the latest change is stale, and one request rebuilds it while the others wait for it, or,
 * within the grace after the change, get the previous copy. Without a working listener nothing is served from here.
 */
export class ResponseCache implements DataChangeListener {
  private generation = 0
  /** When each recent change arrived, by its count modulo CHANGE_TIMES. */
  private readonly changeTimes = new Float64Array(CHANGE_TIMES)
  private readonly entries = new Map<string, Entry>()
  private readonly fills = new Map<string, Promise<Entry | null>>()
  private readonly memos = new Map<string, Memo>()
  private bytes = 0
  private memoBytes = 0
  private listening = false

  constructor(private readonly options: ResponseCacheOptions) {}

  get enabled(): boolean {
    return this.listening && this.options.maxBytes > 0
  }

  onChange(): void {
    this.listening = true
    this.changed()
  }

  /** A change made by this process (its own notice comes later). */
  changed(): void {
    keptAnswersInvalidated()
    this.generation++
    this.changeTimes[this.generation % CHANGE_TIMES] = performance.now()
  }

  onLost(): void {
    this.listening = false
    this.clear()
  }

  clear(): void {
    this.entries.clear()
    this.memos.clear()
    this.bytes = 0
    this.memoBytes = 0
  }

  /**
   * A value computed from the data (a listing's count), kept until the next change; requests that need it while it
   * is computed share the one computation. Without a listener it is computed each time.
   */
  remember<T>(key: string, build: () => Promise<T>): Promise<T> {
    return this.memo(key, build)
  }

  /**
   * As `remember`, but within the grace after a change, requests that come while another rebuilds the value get the
   * value it replaces (figures under a burst of answers), if it was built at change count `floor` or later: a
   * signed-in person's read (`floor`, their record's) never gets a value from before their own last write.
   */
  rememberSince<T>(key: string, floor: number, build: () => Promise<T>, sizeOf?: (value: T) => number): Promise<T> {
    return this.memo(key, build, floor, sizeOf)
  }

  /**
   * `graceFloor`: null, no grace; else the oldest change count a value served within the grace may show. `sizeOf`:
   * the bytes a large value holds, kept within RESPONSE_CACHE_MB with the answers.
   */
  private async memo<T>(key: string, build: () => Promise<T>, graceFloor: number | null = null, sizeOf?: (value: T) => number): Promise<T> {
    if (!this.enabled) return build()
    const memo = this.memos.get(key)
    if (memo) {
      if (memo.settled ? this.staleSince(memo) === null : memo.generation === this.generation) return memo.value as Promise<T>
      const previous = memo.previous
      if (!memo.settled && previous && graceFloor !== null && previous.generation >= graceFloor) {
        if (performance.now() - previous.since < this.options.graceMs) return previous.value as Promise<T>
      }
    }
    const previous =
      graceFloor === null
        ? undefined
        : memo?.settled
          ? { value: memo.value, since: this.staleSince(memo)!, generation: memo.generation }
          : memo?.previous
    const entry: Memo = {
      value: build() as Promise<unknown>,
      size: 0,
      generation: this.generation,
      builtAt: performance.now(),
      settled: false,
      previous,
    }
    this.dropMemo(key)
    if (this.memos.size >= MEMO_ENTRIES) this.dropMemo(this.memos.keys().next().value!)
    this.memos.set(key, entry)
    entry.value.then(
      (value) => {
        entry.settled = true
        entry.previous = undefined
        if (!sizeOf || this.memos.get(key) !== entry) return
        entry.size = sizeOf(value as T)
        this.memoBytes += entry.size
        this.evict()
      },
      () => this.memos.get(key) === entry && this.dropMemo(key),
    )
    return entry.value as Promise<T>
  }

  private dropMemo(key: string): void {
    const memo = this.memos.get(key)
    if (!memo) return
    this.memoBytes -= memo.size
    this.memos.delete(key)
  }

  /** Within RESPONSE_CACHE_MB: the large values remembered longest ago go first, then the answers kept longest ago. */
  private evict(): void {
    for (const [key, memo] of this.memos) {
      if (this.bytes + this.memoBytes <= this.options.maxBytes) return
      if (memo.size > 0) this.dropMemo(key)
    }
    for (const [key, oldest] of this.entries) {
      if (this.bytes + this.memoBytes <= this.options.maxBytes) return
      this.entries.delete(key)
      this.bytes -= oldest.size
    }
  }

  /** The change count now: a piece built from reads that start after this shows every change announced before. */
  get current(): number {
    return this.generation
  }

  /** A kept piece of an answer (one question's JSON, split) still showing the data as it is, or undefined. */
  piece<T>(key: string): T | undefined {
    if (!this.enabled) return undefined
    const entry = this.entries.get(key)
    if (!entry || this.staleSince(entry) !== null) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value as T
  }

  /** Keeps a piece built from reads that started at change count `generation`. */
  keepPiece(key: string, value: unknown, size: number, generation: number): void {
    if (!this.enabled) return
    this.store(key, { body: EMPTY, value, size, contentType: '', generation, builtAt: performance.now() })
  }

  private store(key: string, entry: Entry): void {
    const old = this.entries.get(key)
    if (old) {
      this.bytes -= old.size
      this.entries.delete(key)
    }
    this.entries.set(key, entry)
    this.bytes += entry.size
    this.evict()
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size + this.memos.size, bytes: this.bytes + this.memoBytes }
  }

  /** When the entry stopped showing the data as it is, or null while it still does. */
  private staleSince(entry: { generation: number; builtAt: number }): number | null {
    const expiry = entry.builtAt + this.options.maxAgeMs
    if (entry.generation === this.generation) return performance.now() >= expiry ? expiry : null
    const next = entry.generation + 1
    const changed = this.generation - next < CHANGE_TIMES ? this.changeTimes[next % CHANGE_TIMES]! : -Infinity
    return Math.min(changed, expiry)
  }

  /**
   * A kept answer this request may have, or the fill it must make (null: answer without the cache); a promise only
   * when another request is building the answer.
   */
  lookup(key: string, fresh = false): Entry | Fill | null | Promise<Entry | null> {
    const arrival = this.generation
    const entry = fresh ? undefined : this.entries.get(key)
    const pending = fresh ? undefined : this.fills.get(key)
    if (entry) {
      const since = this.staleSince(entry)
      if (since === null || (pending && performance.now() - since < this.options.graceMs)) {
        // Recently used stays last in line for eviction.
        this.entries.delete(key)
        this.entries.set(key, entry)
        return entry
      }
    }
    if (pending) {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<null>((resolve) => (timer = setTimeout(resolve, LONGEST_WAIT_MS, null)))
      return Promise.race([pending, timeout]).then((built) => {
        clearTimeout(timer)
        return built && built.generation >= arrival ? built : null
      })
    }
    const fill: Fill = { key, generation: arrival, promise: Promise.resolve(null), done: null }
    fill.promise = new Promise<Entry | null>((resolve) => (fill.done = resolve))
    this.fills.set(key, fill.promise)
    return fill
  }

  /** Ends a fill: keeps what it built (if anything) and hands it to the requests waiting for it. */
  complete(fill: Fill, built: { body: Buffer; contentType: string } | null): void {
    const done = fill.done
    if (!done) return
    fill.done = null
    if (this.fills.get(fill.key) === fill.promise) this.fills.delete(fill.key)
    if (!built || !this.enabled || built.body.length > this.options.maxBytes / 4) return done(null)
    const entry: Entry = { ...built, size: built.body.length, generation: fill.generation, builtAt: performance.now() }
    this.store(fill.key, entry)
    done(entry)
  }
}

function isFill(found: Entry | Fill): found is Fill {
  return 'promise' in found
}

/**
 * Answers that vary with something beside the URL are never kept here: HTML pages, a signed-in caller. An
 * application key changes nothing in an answer but the links that repeat the query, which the URL (the key) holds.
 */
function cacheable(request: FastifyRequest): boolean {
  if (request.method !== 'GET' || !request.routeOptions.config.cachedForAnyone) return false
  if (request.caller !== null) return false
  return plainJson(request)
}

/** The request wants the JSON answer itself: no HTML page, no other format. */
export function plainJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept
  return !(accept && accept.includes('html')) && (request.query as { format?: string } | undefined)?.format === undefined
}

/** `Cache-Control: no-cache` asks for an answer built now (RFC 9111 5.2.1.4); it is then kept for the others. */
function wantsFresh(request: FastifyRequest): boolean {
  const control = request.headers['cache-control']
  return control !== undefined && /(^|,)\s*no-cache\s*(,|$)/i.test(control)
}

/** What a kept answer is kept under: the URL as asked, host included (answers hold absolute links). */
export function cacheKeyOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${request.url}`
}

function send(reply: FastifyReply, entry: Entry): FastifyReply {
  reply.header('content-type', entry.contentType)
  reply.header('x-cache', 'HIT')
  return reply.send(entry.body)
}

/**
 * Serves kept answers once rate limits and authentication have run (so refusals and limits stay as they are), and
 * keeps the 200 JSON answers of the routes marked cachedForAnyone. Any unsafe request drops everything in this
 * process before its answer leaves: its author reads the change at once, whichever process it asks next, because
 * that process has the notice by then or, when it has not, rebuilds within the grace.
 */
export function registerResponseCache(app: FastifyInstance, cache: ResponseCache): void {
  app.decorate('responseCache', cache)
  app.decorateRequest(FILL, null)
  // Before parsing, once the rate limits and authentication have run (their hooks come first): a kept answer was
  // validated and allowed when it was built from the same URL for the same anonymous caller.
  const use = (request: FastifyRequest, reply: FastifyReply, found: Entry | Fill | null) => {
    if (!found) return keptAnswerLookedUp('bypass')
    if (!isFill(found)) {
      keptAnswerLookedUp('hit')
      return void send(reply, found)
    }
    keptAnswerLookedUp('miss')
    ;(request as unknown as Record<symbol, Fill | null>)[FILL] = found
    reply.header('x-cache', 'MISS')
  }
  app.addHook(
    'preParsing',
    lightParsingHook((request, reply) => {
      if (!cache.enabled || !cacheable(request)) return
      const found = cache.lookup(cacheKeyOf(request), wantsFresh(request))
      if (found instanceof Promise) return found.then((built) => use(request, reply, built))
      use(request, reply, found)
    }),
  )
  app.addHook(
    'onSend',
    lightSendHook((request, reply, payload) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS') cache.changed()
      const fill = (request as unknown as Record<symbol, Fill | null>)[FILL]
      if (!fill) return
      ;(request as unknown as Record<symbol, Fill | null>)[FILL] = null
      const contentType = String(reply.getHeader('content-type') ?? '')
      const keep =
        reply.statusCode === 200 &&
        contentType.includes('json') &&
        reply.getHeader('set-cookie') === undefined &&
        (typeof payload === 'string' || Buffer.isBuffer(payload))
      cache.complete(fill, keep ? { body: Buffer.from(payload as string | Buffer), contentType } : null)
    }),
  )
  // A fill whose request failed before onSend, or whose client went away, still lets its waiters go.
  const abandon = (request: FastifyRequest) => {
    const fill = (request as unknown as Record<symbol, Fill | null>)[FILL]
    if (fill) cache.complete(fill, null)
  }
  app.addHook('onResponse', lightHook(abandon))
  app.addHook('onRequestAbort', async (request) => abandon(request))
}
