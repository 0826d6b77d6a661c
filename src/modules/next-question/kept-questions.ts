import { QUESTION_FIGURES_CHANNEL, QUESTION_SET_CHANNEL, type DataChangeListener, type DataChanges } from '../../db/data-changes.ts'
import type { LightQuestion } from './next-question.schemas.ts'
import type { LightRow } from './next-question.repository.ts'

/** The notices that keep what this file keeps exact. */
export const KEPT_QUESTIONS_CHANNELS = [QUESTION_SET_CHANNEL, QUESTION_FIGURES_CHANNEL] as const

/** Light questions kept per process, the one read longest ago dropped first. */
const LIGHT_KEPT = 20_000

/** Puts the entry last in line, the one used longest ago dropped past LIGHT_KEPT. */
function keepLast<V>(map: Map<number, V>, id: number, entry: V): void {
  map.delete(id)
  map.set(id, entry)
  if (map.size > LIGHT_KEPT) map.delete(map.keys().next().value!)
}

/** A build of light forms under way: requests that need one of its questions meanwhile share it. */
interface Building {
  /** the notices heard when it started: a later notice about a question leaves that question out of the sharing */
  since: number
  version: number
  origin: string
  done: Promise<LightQuestion[]>
}

interface Light {
  /** by origin (the choices' URLs are absolute) */
  byOrigin: Map<string, LightQuestion>
  /** the question set's version it was read at */
  version: number
}

/**
 * What the next question keeps beside its walks (kept-walks.ts), in each process, until a notice says it changed:
 * the question set's version (moved and announced by migration 037's trigger), and each question's light form
 * (its text moves the version; its figures and choices send `question_figures` with its id, migration 015). So a
 * person's next question after their own answer reads nothing but their record, and answers to other questions
 * leave a question's light form as it is. Nothing is kept while notices may be missed.
 */
export class KeptQuestions implements DataChangeListener {
  #version: number | null = null
  #versionRead: Promise<number> | null = null
  /** Moves of the question set heard (and losses of the listener). */
  #setChanges = 0
  /** Each question's light form, or the count of notices when the last one about it came (nothing kept yet). */
  readonly #light = new Map<number, Light | number>()
  /**
   * Each question's row (text, subtype), with the question set's version it was read at: its figures are replaced
   * by the published ones on every build, and its text moves the version, so a figures notice leaves it as it is.
   */
  readonly #rows = new Map<number, { row: LightRow; version: number }>()
  readonly #building = new Map<number, Building>()
  #notices = 0
  /** The notices this cache hears (set once listening). */
  notices: DataChanges | null = null

  get #enabled(): boolean {
    return this.notices?.listening ?? false
  }

  /** How many notices about questions' figures came so far. */
  get figuresNotices(): number {
    return this.#notices
  }

  /** Whether anything is kept (notices arrive). */
  get enabled(): boolean {
    return this.#enabled
  }

  /** The question set's version: kept, or read once (shared by the requests that need it meanwhile). */
  async version(read: () => Promise<number>): Promise<number> {
    if (!this.#enabled) return read()
    if (this.#version !== null) return this.#version
    const changes = this.#setChanges
    const reading = (this.#versionRead ??= read().finally(() => (this.#versionRead = null)))
    const version = await reading
    if (changes === this.#setChanges) this.#version = version
    return version
  }

  /**
   * The light forms of these questions for `origin`, kept ones as they are when read at `version` or later, the
   * others built (`build` takes their ids, returns them in any order, leaving out any gone) and kept unless a
   * notice about them came meanwhile. In the order of `ids`.
   */
  async light(
    ids: number[],
    origin: string,
    version: number,
    build: (ids: number[]) => Promise<LightQuestion[]>,
  ): Promise<LightQuestion[]> {
    const found = new Map<number, LightQuestion>()
    const missing: number[] = []
    for (const id of ids) {
      const kept = this.#enabled ? this.#light.get(id) : undefined
      const question = typeof kept === 'object' && kept.version >= version ? kept.byOrigin.get(origin) : undefined
      if (question) found.set(id, question)
      else missing.push(id)
    }
    if (missing.length === 0) return ids.map((id) => found.get(id)!)
    const since = this.#notices
    // A build already under way that started after the last notice about a question shows it as one now would:
    // under a surge, the requests waiting for the same question's figures share one read.
    const shared = new Set<Promise<LightQuestion[]>>()
    const own: number[] = []
    for (const id of missing) {
      const building = this.#enabled ? this.#building.get(id) : undefined
      // Shared only while what is kept for the question is a notice count no later than the build's start.
      const noticed = this.#light.get(id)
      const current = building && typeof noticed === 'number' && noticed <= building.since
      if (current && building.origin === origin && building.version >= version) shared.add(building.done)
      else own.push(id)
    }
    if (this.#enabled) for (const id of own) if (!this.#light.has(id)) this.#remember(id, since)
    if (own.length > 0) {
      const done = build(own)
      if (this.#enabled) {
        const building: Building = { since, version, origin, done }
        for (const id of own) this.#building.set(id, building)
        const settled = () => own.forEach((id) => this.#building.get(id) === building && this.#building.delete(id))
        done.then(settled, settled)
      }
      for (const question of await done) {
        found.set(question.id, question)
        this.#keep(question, origin, version, since)
      }
    }
    const wanted = new Set(missing)
    for (const questions of await Promise.all(shared))
      for (const question of questions) if (wanted.has(question.id)) found.set(question.id, question)
    return ids.flatMap((id) => found.get(id) ?? [])
  }

  /** Keeps what was read from `since` on, unless a notice about it came later (or it was forgotten meanwhile). */
  #keep(question: LightQuestion, origin: string, version: number, since: number): void {
    const kept = this.#light.get(question.id)
    if (!this.#enabled || kept === undefined || (typeof kept === 'number' && kept > since)) return
    if (typeof kept === 'object' && kept.version === version) kept.byOrigin.set(origin, question)
    else this.#remember(question.id, { byOrigin: new Map([[origin, question]]), version })
  }

  /**
   * The rows of these questions read at `version` or later: kept ones, the others read (`read` takes their ids,
   * returns them in any order, leaving out any gone) and kept unless the question set moved meanwhile.
   */
  async rows(ids: number[], version: number, read: (ids: number[]) => Promise<LightRow[]>): Promise<Map<number, LightRow>> {
    const found = new Map<number, LightRow>()
    const missing: number[] = []
    for (const id of ids) {
      const kept = this.#enabled ? this.#rows.get(id) : undefined
      if (kept && kept.version >= version) found.set(id, kept.row)
      else missing.push(id)
    }
    if (missing.length === 0) return found
    const changes = this.#setChanges
    for (const row of await read(missing)) {
      found.set(row.id, row)
      if (!this.#enabled || changes !== this.#setChanges) continue
      keepLast(this.#rows, row.id, { row, version })
    }
    return found
  }

  #remember(id: number, entry: Light | number): void {
    keepLast(this.#light, id, entry)
  }

  onChange(channel?: string, payload?: string): void {
    if (channel === QUESTION_FIGURES_CHANNEL) {
      this.#remember(Number(payload), ++this.#notices)
      return
    }
    this.#setChanges++
    this.#version = null
    if (channel === undefined) {
      this.#light.clear()
      this.#rows.clear()
    }
  }

  onLost(): void {
    this.onChange()
  }
}
