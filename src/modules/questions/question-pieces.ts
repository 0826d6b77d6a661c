import { Type } from 'typebox'
import type { ViewContext } from '../../core/view-context.ts'
import { toLatestCompare } from '../compare/compare.mapper.ts'
import { compareRepository } from '../compare/compare.repository.ts'
import { LATEST_COMPARE_SIZE } from '../compare/compare.service.ts'
import { FullUser } from '../users/users.schemas.ts'
import { iso } from '../../core/time.ts'
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
 * What building a signed-in caller's questions from kept JSON needs: the anonymous view (its URLs on the request's
 * host), the cache, the origin the kept JSON's URLs are on, and the route's serializer for a schema (the same
 * bytes a whole answer has).
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

interface Piece {
  before: string
  between: string
  after: string
}

const VoteList = Type.Array(VoteSummary)
const ImportanceList = Type.Array(Importance)
const { latest_compare: LatestCompareList, follow: FollowList } = FullUser.properties

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
 * Questions for a signed-in caller, as JSON, from the anonymous JSON kept for each question version (built for the
 * ones missing, in the usual constant number of statements) with the caller's own fields put in its place: their
 * answers and importance, and on the author their follow link and, on their own questions, their comparisons. The
 * row version comes with the page, so a caller always reads their own vote's figures at once.
 */
export async function signedInQuestionsJson(
  { anonymous, cache, origin, serializer }: QuestionPieces,
  callerId: number,
  stamps: QuestionStamp[],
  theirUserId: number | null,
): Promise<string[]> {
  if (stamps.length === 0) return []
  const db = anonymous.db
  const keyOf = (stamp: QuestionStamp) => `question:${origin}:${stamp.id}:${stamp.version}`
  const ids = stamps.map((stamp) => stamp.id)
  const authors = [...new Set(stamps.map((stamp) => stamp.user_id))]
  const repository = questionsRepository(db)
  const noAnswers = Promise.resolve({ likert: [], choices: [] })
  const kept = new Map<number, Piece>()
  for (const stamp of stamps) {
    const piece = cache.piece<Piece>(keyOf(stamp))
    if (piece) kept.set(stamp.id, piece)
  }
  const missing = stamps.filter((stamp) => !kept.has(stamp.id))
  const serialize = serializer(Question)
  const build = async () => {
    if (missing.length === 0) return
    const generation = cache.current
    const rows = await repository.byIds(missing.map((stamp) => stamp.id))
    const questions = await questionsFromRows(anonymous, rows)
    const versions = new Map(missing.map((stamp) => [stamp.id, stamp]))
    for (const question of questions) {
      const json = serialize(question)
      const piece = split(json)
      if (!piece) throw new Error(`question ${question.id}: its JSON lacks the fields a caller's own go into`)
      kept.set(question.id, piece)
      cache.keepPiece(keyOf(versions.get(question.id)!), piece, json.length, generation)
    }
  }
  const withCaller = authors.includes(callerId)
  const [, own, theirs, latest] = await Promise.all([
    build(),
    repository.ownFieldsOf(callerId, ids, authors),
    theirUserId === null ? noAnswers : repository.answersOf(theirUserId, ids, theirUserId !== callerId),
    withCaller ? compareRepository(db).latest(callerId, LATEST_COMPARE_SIZE) : Promise.resolve([]),
  ])
  const { answers: mine, follows } = own
  const votes = serializer(VoteList)
  const importances = serializer(ImportanceList)
  const followList = serializer(FollowList)
  const latestList = serializer(LatestCompareList)
  const myVotes = votesByQuestion(mine)
  const theirVotes = votesByQuestion(theirs)
  const myLatest = latestList(latest.map(toLatestCompare))
  // A question deleted between the page's read and its build is left out, as a later read would.
  return stamps.flatMap((stamp) => {
    const piece = kept.get(stamp.id)
    if (!piece) return []
    const importance = mine.likert.find((vote) => vote.question_id === stamp.id && vote.importance !== null)
    const own = [
      `"my_vote":${votes(myVotes.get(stamp.id) ?? [])}`,
      `"their_vote":${votes(theirVotes.get(stamp.id) ?? [])}`,
      `"my_importance":${importances(importance ? [{ object_id: stamp.id, value: importance.importance!, modified_at: iso(importance.modified_at) }] : [])}`,
    ].join(',')
    const follow = follows
      .filter((link) => link.following_id === stamp.user_id)
      .map((link) => ({ id: link.id, following: link.following_id, created_at: iso(link.created_at) }))
    const author = `"latest_compare":${stamp.user_id === callerId ? myLatest : '[]'},"follow":${followList(follow)}`
    return [piece.before + own + piece.between + author + piece.after]
  })
}
