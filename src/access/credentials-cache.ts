import type { DataChangeListener, DataChanges } from '../db/data-changes.ts'

/** What a sign-in token decides, as its row and its user's say (credentialsRepository.signIn). */
export interface TokenStanding {
  id: number
  is_staff: boolean
  is_active: boolean
  is_deleted: boolean
  revoked_at: Date | null
  token_id: number
  last_used_at: Date | null
}

/** The channel migration 024's triggers announce on: a token revoked or removed, or its user changed (user id). */
export const CREDENTIALS_CHANGED_CHANNEL = 'credentials_changed'

/**
 * Sign-in tokens kept in each process's memory, by the hash of the token, so that a signed-in request runs no
 * statement to know its caller. Exact across processes: every revocation, removal of a token, or change of its
 * user's standing (active, deleted, staff) is announced by a trigger (migration 024), and the process forgets that
 * user's tokens when it hears it; whatever changed while nobody listened is unknown, so nothing is kept then. A
 * token looked up while a notice arrived is not kept (the change count moved): the lookup may predate the change.
 */
export class CredentialsCache implements DataChangeListener {
  #entries = new Map<string, TokenStanding>()
  #changes = 0
  /** The notices this cache hears (set once listening): nothing is kept while they may be missed. */
  notices: DataChanges | null = null

  constructor(private readonly maxEntries: number) {}

  get #listening(): boolean {
    return this.notices?.listening ?? false
  }

  /** The change count, read before a lookup so that `keep` knows whether a notice came in between. */
  get changes(): number {
    return this.#changes
  }

  get(keyHash: string): TokenStanding | undefined {
    return this.#listening ? this.#entries.get(keyHash) : undefined
  }

  /** Keeps a lookup made when the change count was `changesBefore`, unless a notice came since. */
  keep(keyHash: string, standing: TokenStanding, changesBefore: number): void {
    if (!this.#listening || this.maxEntries === 0 || changesBefore !== this.#changes) return
    // The oldest kept first out: a Map iterates in insertion order.
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(keyHash, standing)
  }

  onChange(channel?: string, payload?: string): void {
    this.#changes++
    const userId = Number(payload)
    if (channel === undefined || !Number.isInteger(userId)) return this.#entries.clear()
    for (const [key, standing] of this.#entries) if (standing.id === userId) this.#entries.delete(key)
  }

  onLost(): void {
    this.#changes++
    this.#entries.clear()
  }
}
