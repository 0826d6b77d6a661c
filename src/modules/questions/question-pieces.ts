import { Type } from 'typebox'
import type { ViewContext } from '../../core/view-context.ts'
import { FullUser } from '../users/users.schemas.ts'
import { votesByQuestion } from './questions.mapper.ts'
import { questionsRepository, type QuestionStamp } from './questions.repository.ts'
import { Importance, Question, VoteSummary } from './questions.schemas.ts'
import { questionsFromRows } from './questions.service.ts'

/** Where kept pieces of answers live (the response cache), as this file uses it. */
export interface PieceCache {
  /** The change count now: a piece built from reads that start after this shows every change announced before. */
  readonly current: number
  piece<T>(key: string): T | undefined
  keepPiece(key: string, value: unknown, size: number, generation: number): void
}

/**
 * What building questions from kept JSON needs: the anonymous view (its URLs on the request's host), the cache, the
 * origin the kept JSON's URLs are on, and the route's serializer for a schema (the same bytes a whole answer has).
 */
export interface QuestionPieces {
  anonymous: ViewContext
  cache: PieceCache
  origin: string
  serializer: (schema: object) => (value: unknown) => string
}

/** What the anonymous JSON of a question holds where a signed-in caller's own fields go, and where its author's do. */
const OWN_FIELDS = '"my_vote":[],"their_vote":[],"my_importance":[]'
const AUTHOR_FIELDS = '"latest_compare":[],"follow":[]'

/** A question's anonymous JSON, split around the caller's own fields and its author's. */
interface Piece {
  before: string
  between: string
  after: string
}

/** A question as anyone sees it, ready for a caller's own fields: its id, its author, and their_vote's JSON. */
export interface KeptQuestion {
  id: number
  authorId: number
  piece: Piece
  theirVote: string
}

/** The caller's own fields on questions, wherever they come from (a kept record, or a read). */
export interface OwnPart {
  votesOn(questionId: number): VoteSummary[]
  importanceOf(questionId: number): { object_id: number; value: number; modified_at: string }[]
  followsOf(userId: number): { id: number; following: number; created_at: string }[]
}

const VoteList = Type.Array(VoteSummary)
const ImportanceList = Type.Array(Importance)
const { follow: FollowList } = FullUser.properties

function split(json: string): Piece | null {
  const own = json.indexOf(OWN_FIELDS)
  const author = own < 0 ? -1 : json.indexOf(AUTHOR_FIELDS, own)
  if (author < 0) return null
  return {
    before: json.slice(0, own),
    between: json.slice(own + OWN_FIELDS.length, author),
    after: json.slice(author + AUTHOR_FIELDS.length),
  }
}

/**
 * The questions of `stamps` as anyone sees them: each one's anonymous JSON kept per question version (built for the
 * ones missing, in the usual constant number of statements), and their_vote for `theirUserId`'s public answers. A
 * question deleted between the stamps' read and this build is left out, as a later read would.
 */
export async function keptQuestions(
  { anonymous, cache, origin, serializer }: QuestionPieces,
  stamps: QuestionStamp[],
  theirUserId: number | null,
): Promise<KeptQuestion[]> {
  if (stamps.length === 0) return []
  const keyOf = (stamp: QuestionStamp) => `question:${origin}:${stamp.id}:${stamp.version}`
  const repository = questionsRepository(anonymous.db)
  const kept = new Map<number, Piece>()
  for (const stamp of stamps) {
    const piece = cache.piece<Piece>(keyOf(stamp))
    if (piece) kept.set(stamp.id, piece)
  }
  const missing = stamps.filter((stamp) => !kept.has(stamp.id))
  const build = async () => {
    if (missing.length === 0) return
    const generation = cache.current
    const serialize = serializer(Question)
    const questions = await questionsFromRows(anonymous, await repository.byIds(missing.map((stamp) => stamp.id)))
    const versions = new Map(missing.map((stamp) => [stamp.id, stamp]))
    for (const question of questions) {
      const json = serialize(question)
      const piece = split(json)
      if (!piece) throw new Error(`question ${question.id}: its JSON lacks the fields a caller's own go into`)
      kept.set(question.id, piece)
      cache.keepPiece(keyOf(versions.get(question.id)!), piece, json.length, generation)
    }
  }
  const ids = stamps.map((stamp) => stamp.id)
  const [, theirs] = await Promise.all([
    build(),
    theirUserId === null ? null : repository.answersOf(theirUserId, ids, true).then(votesByQuestion),
  ])
  const votes = serializer(VoteList)
  return stamps.flatMap((stamp) => {
    const piece = kept.get(stamp.id)
    if (!piece) return []
    return [{ id: stamp.id, authorId: stamp.user_id, piece, theirVote: votes(theirs?.get(stamp.id) ?? []) }]
  })
}

/**
 * Questions as anyone sees them, laid out for a caller's own fields: the bytes between the fields (the page's
 * envelope before the first question and after the last included), and where each question's go.
 */
export interface KeptLayout {
  /** `questions.length * 2 + 1` runs of bytes: before the first own fields, between each question's two, and so on. */
  runs: Buffer[]
  questions: { id: number; authorId: number; theirVote: string }[]
}

/** The bytes a layout holds. */
export const layoutSize = (layout: KeptLayout | null): number => layout?.runs.reduce((sum, run) => sum + run.length, 0) ?? 0

/** Lays questions out for a caller's own fields, within `head` and `tail` (a page's envelope; empty for one). */
export function keptLayout(questions: KeptQuestion[], head: string, tail: string): KeptLayout {
  const runs: string[] = [head]
  questions.forEach(({ piece }, i) => {
    runs[runs.length - 1] += `${i > 0 ? ',' : ''}${piece.before}`
    runs.push(piece.between, piece.after)
  })
  runs[runs.length - 1] += tail
  return {
    runs: runs.map((run) => Buffer.from(run)),
    questions: questions.map(({ id, authorId, theirVote }) => ({ id, authorId, theirVote })),
  }
}

// Answers are carved out of slabs, as Node carves small buffers out of its pool: a page's body is tens of kB, and a
// fresh allocation of each (its own backing store, freed by the collector) cost more than copying into it.
const SLAB_BYTES = 1 << 20
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
let slabUsed = 0

function bodyBuffer(length: number): Buffer {
  let body: Buffer
  if (length > SLAB_BYTES / 8) body = Buffer.allocUnsafe(length)
  else {
    if (slabUsed + length > SLAB_BYTES) {
      slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
      slabUsed = 0
    }
    body = slab.subarray(slabUsed, slabUsed + length)
    slabUsed += (length + 7) & ~7
  }
  return body
}

const NO_OWN_FIELDS = (theirVote: string) => `"my_vote":[],"their_vote":${theirVote},"my_importance":[]`

/**
 * The questions' JSON with the caller's own fields in place: their answers and importance, and on the author their
 * follow links. The bytes a whole build gives, for a caller who authored none of these questions and is not staff
 * (who see the author's full answer counters and comparisons there).
 */
export function withOwnFields(layout: KeptLayout, own: OwnPart, serializer: (schema: object) => (value: unknown) => string): Buffer {
  const votes = serializer(VoteList)
  const importances = serializer(ImportanceList)
  const follows = serializer(FollowList)
  // One buffer for the answer: the kept runs copied in, the caller's fields written between them. Those fields hold
  // ids, values, flags and timestamps only: ASCII, one byte a character.
  const parts: (Buffer | string)[] = [layout.runs[0]!]
  let length = layout.runs[0]!.length
  layout.questions.forEach(({ id, authorId, theirVote }, i) => {
    const mine = own.votesOn(id)
    const fields =
      mine.length === 0
        ? NO_OWN_FIELDS(theirVote)
        : `"my_vote":${votes(mine)},"their_vote":${theirVote},"my_importance":${importances(own.importanceOf(id))}`
    const links = own.followsOf(authorId)
    const author = `"latest_compare":[],"follow":${links.length === 0 ? '[]' : follows(links)}`
    const between = layout.runs[2 * i + 1]!
    const after = layout.runs[2 * i + 2]!
    parts.push(fields, between, author, after)
    length += fields.length + between.length + author.length + after.length
  })
  const body = bodyBuffer(length)
  let at = 0
  for (const part of parts) {
    if (typeof part === 'string') at += body.write(part, at, 'latin1')
    else {
      body.set(part, at)
      at += part.length
    }
  }
  return body
}
