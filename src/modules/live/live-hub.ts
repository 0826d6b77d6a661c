import type { ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import {
  COLLECTION_ITEMS_CHANNEL,
  OPINION_GROUPS_CHANNEL,
  QUESTION_FIGURES_CHANNEL,
  type DataChangeListener,
} from '../../db/data-changes.ts'
import { fingerprint, questionFigures, sseEvent } from './live-events.ts'
import { withFigures } from '../../disclosure/figures.ts'
import type { ChoiceFiguresRow, LiveFiguresRepository } from './live-figures.repository.ts'
import type { Viewer } from '../../core/caller.ts'

/** The channels live results follow, each with an id as payload. */
export const LIVE_CHANNELS = [QUESTION_FIGURES_CHANNEL, COLLECTION_ITEMS_CHANNEL, OPINION_GROUPS_CHANNEL] as const

const RETRY_AFTER_FAILURE_MS = 1_000
/** What a stream hears as its process stops: a comment saying why, and a short reconnection delay (SSE's retry). */
export const SHUTDOWN_HINT = ': the server is restarting; reconnect\nretry: 500\n\n'
/** However busy, a change goes out within this long; otherwise writing waits twice as long as it last took. */
const LONGEST_INTERVAL_MS = 1_000
const KEEP_ALIVE = Buffer.from(': keep-alive\n\n')
/** Subscribers written to between two turns of the event loop, so that queries in flight (votes holding a lock) go on. */
const SLICE = 500

export interface LiveOptions {
  maxSubscribers: number
  intervalMs: number
  heartbeatMs: number
}

interface Subscriber {
  response: ServerResponse
  /** The id of the last event written to it: what it has seen. */
  lastId: string | null
  viewer: Viewer
  /** Its socket is full: nothing is written until it drains, then only what is current then. */
  waiting: boolean
}

interface Shown {
  id: number
  json: string
  fp: string
}

interface QuestionState extends Shown {
  ownerId: number
  publish: boolean
}

interface Channel {
  subscribers: Set<Subscriber>
  loaded: boolean
}

interface QuestionChannel extends Channel {
  state: QuestionState | null
  /** The state's event, encoded once for every subscriber. */
  event: Buffer | null
}

interface CollectionChannel extends Channel {
  /** Its published questions, in the collection's order. */
  members: Shown[]
  fp: string
  /** The members' snapshot event, encoded once when first needed. */
  snapshot: Buffer | null
}

/**
 * Live results in one process: the streams of questions and collections its clients follow. Notices of changed
 * figures (from every process, through the database) are gathered and answered by one flush at most every
 * `intervalMs`: a few statements load what changed, each event is serialized once and written to every
 * subscriber of its channel. Event ids are digests of what is shown, so a subscriber is sent only figures it has
 * not seen, here or before reconnecting to another process.
 */
export class LiveHub implements DataChangeListener {
  private readonly questions = new Map<number, QuestionChannel>()
  private readonly collections = new Map<number, CollectionChannel>()
  private changedQuestions = new Set<number>()
  private changedCollections = new Set<number>()
  private reloadAll = false
  private timer: NodeJS.Timeout | null = null
  private flushing: Promise<void> | null = null
  private again = false
  private nextFlushAt = 0
  private closed = false
  private count = 0
  private readonly heartbeat: NodeJS.Timeout

  constructor(
    private readonly repository: LiveFiguresRepository,
    private readonly options: LiveOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.heartbeat = setInterval(() => this.beat(), options.heartbeatMs)
    this.heartbeat.unref()
  }

  get subscribers(): number {
    return this.count
  }

  /** Whether another subscriber is admitted (LIVE_MAX_SUBSCRIBERS). */
  admits(): boolean {
    return !this.closed && this.count < this.options.maxSubscribers
  }

  onChange(channel?: string, payload?: string): void {
    if (channel === undefined) {
      // The listener is back after a loss: whatever changed meanwhile is unknown.
      this.reloadAll = true
      return this.schedule()
    }
    if (channel === OPINION_GROUPS_CHANNEL) return this.passOnOpinionGroups(payload ?? '')
    const id = Number(payload)
    if (!Number.isInteger(id)) return
    if (channel === QUESTION_FIGURES_CHANNEL && (this.questions.has(id) || this.collections.size > 0)) {
      this.changedQuestions.add(id)
      this.schedule()
    } else if (channel === COLLECTION_ITEMS_CHANNEL && this.collections.has(id)) {
      this.changedCollections.add(id)
      this.schedule()
    }
  }

  onLost(): void {}

  /** Follows a question (kind 'question') or a collection; the response's headers are already sent. */
  subscribe(kind: 'question' | 'collection', id: number, response: ServerResponse, lastId: string | null, viewer: Viewer): void {
    const subscriber: Subscriber = { response, lastId, viewer, waiting: false }
    const channels: Map<number, Channel> = kind === 'question' ? this.questions : this.collections
    let channel = channels.get(id)
    if (!channel) {
      channel =
        kind === 'question'
          ? ({ subscribers: new Set(), loaded: false, state: null, event: null } as QuestionChannel)
          : ({ subscribers: new Set(), loaded: false, members: [], fp: '', snapshot: null } as CollectionChannel)
      channels.set(id, channel)
    }
    channel.subscribers.add(subscriber)
    this.count += 1
    response.on('close', () => {
      if (!channel.subscribers.delete(subscriber)) return
      this.count -= 1
      if (channel.subscribers.size === 0 && channels.get(id) === channel) channels.delete(id)
    })
    // Whatever it missed while full comes as the current figures, once.
    response.on('drain', () => {
      subscriber.waiting = false
      if (!channel.loaded) return
      if (kind === 'question') this.sendQuestion(channel as QuestionChannel, subscriber)
      else void this.sendSnapshot(id, channel as CollectionChannel, [subscriber])
    })
    if (!channel.loaded) {
      ;(kind === 'question' ? this.changedQuestions : this.changedCollections).add(id)
      return this.schedule()
    }
    if (kind === 'question') this.sendQuestion(channel as QuestionChannel, subscriber)
    else void this.sendSnapshot(id, channel as CollectionChannel, [subscriber])
  }

  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.heartbeat)
    if (this.timer) clearTimeout(this.timer)
    await this.flushing
    for (const channel of [...this.questions.values(), ...this.collections.values()])
      for (const subscriber of channel.subscribers) subscriber.response.end(SHUTDOWN_HINT)
  }

  private schedule(): void {
    if (this.closed) return
    if (this.flushing) {
      this.again = true
      return
    }
    if (this.timer) return
    this.timer = setTimeout(
      () => {
        this.timer = null
        const started = Date.now()
        this.nextFlushAt = started + this.options.intervalMs
        this.flushing = this.flush()
          .then((writingMs) => {
            // Writing to many subscribers takes the process's time from everything else: pace it.
            const paced = Date.now() + Math.min(LONGEST_INTERVAL_MS, 2 * writingMs)
            this.nextFlushAt = Math.min(started + LONGEST_INTERVAL_MS, Math.max(this.nextFlushAt, paced))
          })
          .catch((error) => {
            this.log.error({ err: error }, 'live results: loading figures failed; trying again')
            this.reloadAll = true
            this.again = true
            this.nextFlushAt = Date.now() + RETRY_AFTER_FAILURE_MS
          })
          .finally(() => {
            this.flushing = null
            if (this.again) {
              this.again = false
              this.schedule()
            }
          })
      },
      Math.max(0, this.nextFlushAt - Date.now()),
    )
  }

  /** Loads and sends what changed; returns how long sending took (ms). */
  private async flush(): Promise<number> {
    const reloadAll = this.reloadAll
    const changed = reloadAll ? new Set([...this.questions.keys(), ...this.changedQuestions]) : this.changedQuestions
    const reload = reloadAll ? new Set([...this.collections.keys()]) : this.changedCollections
    this.reloadAll = false
    this.changedQuestions = new Set()
    this.changedCollections = new Set()

    // The loaded collections not reloaded whole, with the changed questions each holds (now or until now).
    const deltas = new Map<number, Set<number>>()
    const following = [...this.collections.entries()].filter(([id, channel]) => channel.loaded && !reload.has(id))
    if (changed.size > 0 && following.length > 0) {
      const add = (collectionId: number, questionId: number) => {
        const set = deltas.get(collectionId) ?? new Set<number>()
        deltas.set(collectionId, set.add(questionId))
      }
      for (const [collectionId, channel] of following)
        for (const member of channel.members) if (changed.has(member.id)) add(collectionId, member.id)
      const held = await this.repository.holding(
        following.map(([id]) => id),
        [...changed],
      )
      for (const row of held) add(row.parent_id, row.question_id)
    }
    const items = await this.repository.collectionQuestions([...reload].filter((id) => this.collections.has(id)))
    const needed = new Set<number>([...changed].filter((id) => this.questions.has(id)))
    for (const set of deltas.values()) for (const id of set) needed.add(id)
    for (const item of items) if (item.question_id !== null) needed.add(item.question_id)
    const states = await this.load([...needed])

    const writing = performance.now()
    for (const id of changed) {
      const channel = this.questions.get(id)
      if (channel) await this.applyQuestion(id, channel, states.get(id) ?? null)
    }
    const itemsOf = new Map<number, number[]>()
    for (const item of items) {
      const list = itemsOf.get(item.collection_id) ?? []
      if (item.question_id !== null) list.push(item.question_id)
      itemsOf.set(item.collection_id, list)
    }
    for (const id of reload) {
      const channel = this.collections.get(id)
      if (channel) await this.reloadCollection(id, channel, itemsOf.get(id), states)
    }
    for (const [id, questionIds] of deltas) {
      const channel = this.collections.get(id)
      if (channel) await this.applyCollectionDelta(id, channel, questionIds, states)
    }
    return performance.now() - writing
  }

  /**
   * The current figures of the questions as everyone sees them, serialized once each: three statements. A private
   * answer that leaves the published figures as they were gives the same event id, so nothing is sent.
   */
  private async load(ids: number[]): Promise<Map<number, QuestionState>> {
    const [rows, choices, figures] = await Promise.all([
      this.repository.questions(ids),
      this.repository.choices(ids),
      this.repository.published(ids),
    ])
    const choicesOf = new Map<number, ChoiceFiguresRow[]>()
    for (const choice of choices)
      choicesOf.set(choice.question_id, [...(choicesOf.get(choice.question_id) ?? []), withFigures(choice, figures.choice(choice.id))])
    return new Map(
      rows.map((row) => {
        const json = JSON.stringify(questionFigures(withFigures(row, figures.question(row.id)), choicesOf.get(row.id) ?? []))
        return [row.id, { id: row.id, json, fp: fingerprint(json), ownerId: row.user_id, publish: row.publish }]
      }),
    )
  }

  private async applyQuestion(id: number, channel: QuestionChannel, state: QuestionState | null): Promise<void> {
    channel.loaded = true
    channel.state = state
    channel.event = state && Buffer.from(sseEvent('figures', state.fp, state.json))
    if (state === null) {
      this.questions.delete(id)
      return this.end([...channel.subscribers], JSON.stringify({ id }))
    }
    await inSlices(channel.subscribers, (subscriber) => this.sendQuestion(channel, subscriber))
  }

  private sendQuestion(channel: QuestionChannel, subscriber: Subscriber): void {
    const state = channel.state!
    const { viewer } = subscriber
    if (!state.publish && !viewer.isStaff && viewer.id !== state.ownerId) return this.end([subscriber], JSON.stringify({ id: state.id }))
    if (subscriber.lastId !== state.fp && this.write(subscriber, channel.event!)) subscriber.lastId = state.fp
  }

  private async reloadCollection(
    id: number,
    channel: CollectionChannel,
    questionIds: number[] | undefined,
    states: Map<number, QuestionState>,
  ): Promise<void> {
    if (questionIds === undefined) {
      this.collections.delete(id)
      return this.end([...channel.subscribers], JSON.stringify({ id }))
    }
    channel.loaded = true
    const seen = new Set<number>()
    channel.members = []
    for (const questionId of questionIds) {
      const state = states.get(questionId)
      if (!state?.publish || seen.has(questionId)) continue
      seen.add(questionId)
      channel.members.push(state)
    }
    channel.fp = collectionFingerprint(channel.members)
    channel.snapshot = null
    await this.sendSnapshot(id, channel, channel.subscribers)
  }

  private async applyCollectionDelta(
    id: number,
    channel: CollectionChannel,
    questionIds: Set<number>,
    states: Map<number, QuestionState>,
  ): Promise<void> {
    const before = channel.fp
    const updated: Shown[] = []
    let structural = false
    for (const questionId of questionIds) {
      const index = channel.members.findIndex((member) => member.id === questionId)
      const state = states.get(questionId)
      const shown = state !== undefined && state.publish
      if (index >= 0 && shown) {
        if (channel.members[index].fp !== state.fp) updated.push((channel.members[index] = state))
      } else if (index >= 0) {
        channel.members.splice(index, 1)
        structural = true
      } else if (shown) {
        // Newly shown (published, or added): its place comes with the collection's order, so reload it whole.
        this.changedCollections.add(id)
        this.again = true
      }
    }
    if (!structural && updated.length === 0) return
    channel.fp = collectionFingerprint(channel.members)
    channel.snapshot = null
    if (structural) return this.sendSnapshot(id, channel, channel.subscribers)
    const delta = Buffer.from(
      sseEvent('figures', channel.fp, `{"id":${id},"questions":[${updated.map((member) => member.json).join(',')}]}`),
    )
    const behind: Subscriber[] = []
    const now = channel.fp
    await inSlices(channel.subscribers, (subscriber) => {
      if (subscriber.lastId === now) return
      if (subscriber.lastId !== before) return void behind.push(subscriber)
      if (this.write(subscriber, delta)) subscriber.lastId = now
    })
    await this.sendSnapshot(id, channel, behind)
  }

  /** The whole collection to those who have not seen its current figures. */
  private async sendSnapshot(id: number, channel: CollectionChannel, subscribers: Iterable<Subscriber>): Promise<void> {
    await inSlices(subscribers, (subscriber) => {
      if (subscriber.lastId === channel.fp || subscriber.waiting) return
      channel.snapshot ??= Buffer.from(
        sseEvent('snapshot', channel.fp, `{"id":${id},"questions":[${channel.members.map((member) => member.json).join(',')}]}`),
      )
      if (this.write(subscriber, channel.snapshot)) subscriber.lastId = channel.fp
    })
  }

  /**
   * New opinion groups of a followed collection, as published (the notice carries them): an `opinion_groups` event
   * without an id, so that resuming by Last-Event-ID still follows the figures alone. A notice missed while the
   * listener was down is not sent again; the groups themselves are always at /api/opinion_groups/.
   */
  private passOnOpinionGroups(payload: string): void {
    let id: unknown
    try {
      id = (JSON.parse(payload) as { id?: unknown }).id
    } catch {
      return
    }
    const channel = typeof id === 'number' ? this.collections.get(id) : undefined
    if (!channel?.loaded) return
    const event = Buffer.from(sseEvent('opinion_groups', null, payload))
    void inSlices(channel.subscribers, (subscriber) => this.write(subscriber, event))
  }

  /** The question or collection is gone (or hidden from them): said once, then the stream ends. */
  private end(subscribers: Subscriber[], data: string): void {
    const event = Buffer.from(sseEvent('gone', null, data))
    for (const subscriber of subscribers) subscriber.response.end(event)
  }

  /**
   * Writes unless the subscriber's socket is still full from before; says whether it wrote. Each event holds the
   * whole current figures, so a slow subscriber skips to the latest instead of queueing: its memory stays bounded.
   */
  private write(subscriber: Subscriber, bytes: Buffer): boolean {
    const { response } = subscriber
    if (subscriber.waiting || response.destroyed || response.writableEnded) return false
    if (!response.write(bytes)) subscriber.waiting = true
    return true
  }

  /** A comment line now and then keeps proxies from closing a quiet stream. */
  private beat(): void {
    for (const channel of [...this.questions.values(), ...this.collections.values()])
      for (const subscriber of channel.subscribers) this.write(subscriber, KEEP_ALIVE)
  }
}

async function inSlices<T>(items: Iterable<T>, work: (item: T) => void): Promise<void> {
  let done = 0
  for (const item of [...items]) {
    work(item)
    if (++done % SLICE === 0) await new Promise((resolve) => setImmediate(resolve))
  }
}

function collectionFingerprint(members: Shown[]): string {
  return fingerprint(members.map((member) => `${member.id}:${member.fp}`).join(','))
}
