import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { foldFigureDeltas, vacuumFigureDeltas } from '../../db/answer-gate.ts'
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
  #foldedSinceVacuum = 0

  /** Told of a fold that failed (the app logs it); the next answer or sweep tries again. */
  onError: (error: Error) => void = () => {}

  constructor(
    private readonly db: Kysely<Database>,
    private readonly delayMs: number,
    private readonly vacuumRows = DEFAULT_VACUUM_ROWS,
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
          this.#foldedSinceVacuum += await foldFigureDeltas(this.db).catch((error: Error) => (this.onError(error), 0))
          if (this.vacuumRows > 0 && this.#foldedSinceVacuum >= this.vacuumRows) {
            this.#foldedSinceVacuum = 0
            await vacuumFigureDeltas(this.db).catch((error: Error) => this.onError(error))
          }
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

/**
 * Folded rows after which a process vacuums the delta tables: a read then walks at most about this many dead index
 * entries of a question (some 40 µs), and a vacuum of tables this small takes a few milliseconds.
 */
const DEFAULT_VACUUM_ROWS = 1_000

const folders = new WeakMap<Kysely<Database>, FigureFolder>()

/** The folder of a database handle, made on first use (and after one closed) with the settings given then. */
export function figureFolder(db: Kysely<Database>, delayMs = 50, vacuumRows = DEFAULT_VACUUM_ROWS): FigureFolder {
  let folder = folders.get(db)
  if (!folder || folder.closed) folders.set(db, (folder = new FigureFolder(db, delayMs, vacuumRows)))
  return folder
}
