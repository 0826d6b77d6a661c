/**
 * Which statements go to a PostgreSQL server as named prepared statements. The service sends the same few hundred
 * statement texts over and over; unnamed, each is parsed and planned anew on every call, which was half the server's
 * time for the cheaper ones (the figures of the next question: 1.0 ms unnamed, 0.5 ms prepared). A text is prepared
 * on a connection the second time this process sends it, under a name of its own that `pg` remembers per
 * connection, up to `most` texts a process (what each server connection holds in its plan cache stays bounded).
 *
 * Off behind a transaction pooler (PgBouncer before 1.21 cannot carry a prepared statement from one transaction's
 * server connection to the next): config.ts turns it off when DATABASE_DIRECT_URL names a separate server.
 */
export class PreparedStatements {
  readonly #names = new Map<string, string>()
  /** Texts sent once: forgotten in bulk when too many, so statements written with literals cannot fill memory. */
  #seen = new Set<string>()
  readonly #stale = new Set<string>()

  constructor(readonly most = 500) {}

  /** The name to send `text` under, or undefined to send it unnamed. */
  nameOf(text: string): string | undefined {
    const name = this.#names.get(text)
    if (name !== undefined || this.#names.size >= this.most || this.#stale.has(text)) return name
    if (!this.#seen.has(text)) {
      if (this.#seen.size >= 10 * this.most) this.#seen = new Set()
      this.#seen.add(text)
      return undefined
    }
    this.#seen.delete(text)
    const named = `civic_${this.#names.size + 1}`
    this.#names.set(text, named)
    return named
  }

  /** Never again under a name: its prepared form went stale (isStalePreparedStatement). */
  forget(text: string): void {
    if (this.#names.delete(text)) this.#stale.add(text)
  }

  /** How many texts are prepared. */
  get size(): number {
    return this.#names.size
  }
}

/**
 * A prepared statement the server no longer accepts as it was: a migration changed the columns it returns
 * (`cached plan must not change result type`). Sent again unnamed, it runs (outside a transaction; inside one, the
 * transaction fails once), and its text is sent unnamed from then on.
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string }
  return code === '0A000' && /cached plan must not change result type/.test(message ?? '')
}
