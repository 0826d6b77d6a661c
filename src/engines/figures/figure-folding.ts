import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { foldFigureDeltas } from '../../db/answer-gate.ts'
import { queryCounter } from '../../db/query-counter.ts'

/**
 * Folds the answers' count deltas into the stored counts (migration 046), a short while after this process wrote an
 * answer, and on a slow sweep for other writers (a command, a process that stopped). Readers add what is not folded
 * yet, so the timing changes no figure: it bounds the deltas a read adds up. One fold runs at a time in a process;
 * across processes fold_figure_deltas lets one through and the others return at once.
 */
export class FigureFolder {
  #timer: NodeJS.Timeout | null = null
  #sweep: NodeJS.Timeout | null = null
  #running: Promise<void> | null = null
  #again = false
  #closed = false

  /** Told of a fold that failed (the app logs it); the next answer or sweep tries again. */
  onError: (error: Error) => void = () => {}

  constructor(
    private readonly db: Kysely<Database>,
    private readonly delayMs: number,
  ) {}

  get closed(): boolean {
    return this.#closed
  }

  /** An answer was written here: a fold follows within delayMs. */
  answered(): void {
    if (this.#closed || this.#timer) return
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.#run()
    }, this.delayMs)
    this.#timer.unref()
  }

  /** Sweeps every sweepMs for deltas no process of this kind announced. */
  sweepEvery(sweepMs: number): void {
    this.#sweep = setInterval(() => this.#run(), sweepMs)
    this.#sweep.unref()
  }

  #run(): void {
    if (this.#running) {
      this.#again = true
      return
    }
    // Outside the request that answered: the fold is nobody's statement (x-query-count).
    this.#running = queryCounter.exit(async () => {
      try {
        do {
          this.#again = false
          await foldFigureDeltas(this.db).catch((error: Error) => this.onError(error))
        } while (this.#again && !this.#closed)
      } finally {
        this.#running = null
      }
    })
  }

  /** Stops the timers and folds once more, so a process that stops leaves little behind. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#timer) clearTimeout(this.#timer)
    if (this.#sweep) clearInterval(this.#sweep)
    this.#timer = this.#sweep = null
    await this.#running
    await foldFigureDeltas(this.db).catch((error: Error) => this.onError(error))
  }
}

const folders = new WeakMap<Kysely<Database>, FigureFolder>()

/** The folder of a database handle, made on first use (and after one closed) with the delay given then. */
export function figureFolder(db: Kysely<Database>, delayMs = 50): FigureFolder {
  let folder = folders.get(db)
  if (!folder || folder.closed) folders.set(db, (folder = new FigureFolder(db, delayMs)))
  return folder
}
