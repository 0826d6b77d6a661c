import type { Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import { queryCounter } from '../db/query-counter.ts'
import { readRouting } from '../db/read-routing.ts'
import { credentialsRepository } from './credentials.repository.ts'

/** How long uses gather before they are written together. */
const GATHER_MS = 250

/**
 * When each sign-in token and application key was last used (`last_used_at`, for audits: to the minute, not for
 * accounting), written for many at once, after the requests that used them have been answered. A request never
 * waits for it: under a crowd of people signing in, a statement and a commit of its own each was as much work for
 * the database as the answers they came to give. A process that stops writes what it gathered.
 */
export class UseMarks {
  #tokens = new Set<number>()
  #appKeys = new Set<number>()
  #timer: NodeJS.Timeout | null = null
  #writing: Promise<void> = Promise.resolve()
  onError: (error: Error) => void = () => {}

  constructor(private readonly db: Kysely<Database>) {}

  token(id: number): void {
    this.#tokens.add(id)
    this.#schedule()
  }

  appKey(id: number): void {
    this.#appKeys.add(id)
    this.#schedule()
  }

  #schedule(): void {
    if (this.#timer) return
    // Outside the request: its statement count and its replica routing are the request's own.
    this.#timer = queryCounter.exit(() => readRouting.exit(() => setTimeout(() => void this.#write(), GATHER_MS)))
    this.#timer.unref()
  }

  #write(): Promise<void> {
    this.#timer = null
    const tokens = [...this.#tokens]
    const appKeys = [...this.#appKeys]
    this.#tokens.clear()
    this.#appKeys.clear()
    const marks = credentialsRepository(this.db)
    this.#writing = this.#writing
      .then(async () => {
        if (tokens.length) await marks.markTokensUsed(tokens)
        if (appKeys.length) await marks.markAppKeysUsed(appKeys)
      })
      .catch((error: Error) => this.onError(error))
    return this.#writing
  }

  /** Writes what has gathered now, and waits for every write begun (a process stopping). */
  settled(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer)
      return this.#write()
    }
    return this.#writing
  }
}
