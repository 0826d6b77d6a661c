import type { AnsweredQuestions } from '../../access/own-records.ts'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { QuestionListQuery } from '../questions/questions.schemas.ts'
import type { nextQuestionRepository } from './next-question.repository.ts'
import { Walk, type WalkPosition } from './walk.ts'

/**
 * The questions a walk can serve, kept in each process, in the walk's order, and checked on every request against
 * the question set's version (migration 026), read in the same statement as the caller's answers: a walk kept at
 * that version is exact, whatever answers came meanwhile. Answers never change a walk; questions created, published,
 * opened, closed, tagged or put in a collection do, and the next request reads the walk again.
 */

/** Walks kept per database, the one read longest ago dropped first. */
const WALKS_KEPT = 256
/** Up to this many questions, the caller's answers are read among the walk's questions; above, all of them. */
const NAMED_MOST = 1_000

interface KeptWalk {
  version: number
  walk: Walk
}

const walksByDatabase = new WeakMap<Kysely<Database>, Map<string, Promise<KeptWalk>>>()

export interface WalkShape {
  filters: QuestionListQuery
  /** A collection whose item order the walk follows; null: question id order. */
  collectionOrder: number | null
}

type Repository = ReturnType<typeof nextQuestionRepository>

/** Who walks: their id, their answered questions when known from memory, and the question set's version as kept. */
export interface Walker {
  id: number | null
  /** Known from the person's kept record (anyone: none answered); null: read with the version. */
  answered: AnsweredQuestions | null
  /** The question set's version, remembered until the data changes. */
  version: () => Promise<number>
}

/**
 * The caller's position on the walk. With the caller's answers known in memory, no statement once the walk and the
 * version are kept; otherwise one (the version and the caller's answers); two more when the walk kept is not
 * current (the walk read again, and the caller's answers among its questions).
 */
export async function walkPosition(
  db: Kysely<Database>,
  repository: Repository,
  shape: WalkShape,
  walker: Walker,
  exclude: number[],
  limit: number,
): Promise<WalkPosition> {
  const walks = walksByDatabase.get(db) ?? walksByDatabase.set(db, new Map()).get(db)!
  const key = JSON.stringify([shape.filters, shape.collectionOrder])
  const kept = await walks.get(key)?.catch(() => undefined)
  if (walker.answered !== null) {
    const version = await walker.version()
    const walk = !kept || kept.version < version ? await readWalk(walks, key, repository, shape, version) : kept
    return { ...walk.walk.position(walker.answered, new Set(exclude), limit, Date.now()), version }
  }
  const named = (kept: KeptWalk | undefined) => (kept && kept.walk.length <= NAMED_MOST ? [...kept.walk.ids] : null)
  let read = await repository.versionAndAnswered(walker.id, named(kept))
  let walk = kept
  if (!walk || walk.version < read.version) {
    walk = await readWalk(walks, key, repository, shape, read.version)
    // The answers were read among the questions of the walk kept before.
    if (walker.id !== null && named(kept) !== null) read = await repository.versionAndAnswered(walker.id, named(walk))
  }
  return { ...walk.walk.position(read.answered, new Set(exclude), limit, Date.now()), version: read.version }
}

/** The walk read at `version` or later: a read already under way that far is shared. */
async function readWalk(
  walks: Map<string, Promise<KeptWalk>>,
  key: string,
  repository: Repository,
  shape: WalkShape,
  version: number,
): Promise<KeptWalk> {
  const pending = walks.get(key)
  if (pending) {
    const walk = await pending.catch(() => undefined)
    if (walk && walk.version >= version) return walk
  }
  const reading = repository.walk(shape.filters, shape.collectionOrder).then(({ version, items }) => ({ version, walk: new Walk(items) }))
  walks.delete(key)
  if (walks.size >= WALKS_KEPT) walks.delete(walks.keys().next().value!)
  walks.set(key, reading)
  reading.catch(() => walks.get(key) === reading && walks.delete(key))
  return reading
}
