import type { DataChangeListener, DataChanges } from '../db/data-changes.ts'
import { credentialLookedUp } from '../core/metrics.ts'

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

/** What an application key decides (credentialsRepository.appKey), and when this process last recorded its use. */
export interface AppKeyStanding {
  id: number
  revoked_at: Date | null
  /** performance.now() of this process's last record of the key's use (0: never). */
  markedAt: number
}

/** Application keys a process keeps: they are few (one per client application). */
const APP_KEYS_KEPT = 1_000
const APP_KEY_PAYLOAD = 'app-key:'

/**
 * The channel migration 024's triggers announce on: a token revoked or removed, or its user changed (user id); and
 * migration 037's: an application key revoked or removed (`app-key:<id>`).
 */
export const CREDENTIALS_CHANGED_CHANNEL = 'credentials_changed'

/**
 * Sign-in tokens and application keys kept in each process's memory, so that a request runs no statement to know
 * its caller or its application. They are kept by the credential as sent: the process holds it for every request
 * anyway, and hashing it on each one cost more than the lookup (the database still stores only hashes). Exact across processes: every revocation, removal of a token, or change of its
 * user's standing (active, deleted, staff) is announced by a trigger (migration 024), and the process forgets that
 * user's tokens when it hears it; so is every revocation or removal of an application key (migration 037); whatever changed while nobody listened is unknown, so nothing is kept then. A
 * token looked up while a notice arrived is not kept (the change count moved): the lookup may predate the change.
 */
export class CredentialsCache implements DataChangeListener {
  #entries = new Map<string, TokenStanding>()
  #appKeys = new Map<string, AppKeyStanding>()
  #changes = 0
  /** Lookups under way, with the change count they started at: requests with the same token meanwhile share them. */
  #lookups = new Map<string, { changes: number; standing: Promise<TokenStanding | undefined> }>()
  /** The notices this cache hears (set once listening): nothing is kept while they may be missed. */
  notices: DataChanges | null = null

  constructor(private readonly maxTokens: number) {}

  get #listening(): boolean {
    return this.notices?.listening ?? false
  }

  /** The change count, read before a lookup so that `keep` knows whether a notice came in between. */
  get changes(): number {
    return this.#changes
  }

  get(credential: string): TokenStanding | undefined {
    const kept = this.#listening ? this.#entries.get(credential) : undefined
    credentialLookedUp('token', kept !== undefined)
    return kept
  }

  /**
   * The token's standing, read by `read` and kept, unless a lookup of the same token is under way and no notice came
   * since it began: then that one's (a person answering ten questions at once signs in once, not ten times). Nothing
   * is shared while notices may be missed.
   */
  lookUp(credential: string, read: () => Promise<TokenStanding | undefined>): Promise<TokenStanding | undefined> {
    const under = this.#lookups.get(credential)
    if (under && under.changes === this.#changes && this.#listening) return under.standing
    const changes = this.#changes
    const standing = read().then((row) => {
      if (row) this.keep(credential, row, changes)
      return row
    })
    const lookup = { changes, standing }
    this.#lookups.set(credential, lookup)
    const done = () => void (this.#lookups.get(credential) === lookup && this.#lookups.delete(credential))
    standing.then(done, done)
    return standing
  }

  /** Tokens and application keys kept now. */
  get size(): { tokens: number; appKeys: number } {
    return { tokens: this.#entries.size, appKeys: this.#appKeys.size }
  }

  /** Keeps a lookup made when the change count was `changesBefore`, unless a notice came since. */
  keep(credential: string, standing: TokenStanding, changesBefore: number): void {
    if (!this.#listening || this.maxTokens === 0 || changesBefore !== this.#changes) return
    // The oldest kept first out: a Map iterates in insertion order.
    if (this.#entries.size >= this.maxTokens) this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(credential, standing)
  }

  appKey(credential: string): AppKeyStanding | undefined {
    const kept = this.#listening ? this.#appKeys.get(credential) : undefined
    credentialLookedUp('app_key', kept !== undefined)
    return kept
  }

  /** Keeps an application key looked up when the change count was `changesBefore`, unless a notice came since. */
  keepAppKey(credential: string, standing: AppKeyStanding, changesBefore: number): void {
    if (!this.#listening || this.maxTokens === 0 || changesBefore !== this.#changes) return
    if (this.#appKeys.size >= APP_KEYS_KEPT) this.#appKeys.delete(this.#appKeys.keys().next().value!)
    this.#appKeys.set(credential, standing)
  }

  onChange(channel?: string, payload?: string): void {
    this.#changes++
    if (channel !== undefined && payload?.startsWith(APP_KEY_PAYLOAD)) {
      const keyId = Number(payload.slice(APP_KEY_PAYLOAD.length))
      for (const [hash, standing] of this.#appKeys) if (standing.id === keyId) this.#appKeys.delete(hash)
      return
    }
    const userId = Number(payload)
    if (channel === undefined || payload === '' || !Number.isInteger(userId)) return this.#clear()
    for (const [key, standing] of this.#entries) if (standing.id === userId) this.#entries.delete(key)
  }

  onLost(): void {
    this.#changes++
    this.#clear()
  }

  #clear(): void {
    this.#entries.clear()
    this.#appKeys.clear()
  }
}
