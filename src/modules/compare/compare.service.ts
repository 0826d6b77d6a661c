import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, fieldError, invalidPk } from '../../core/errors.ts'
import { INT4_MAX, isIntegerText } from '../../core/integers.ts'
import {
  differencePercent,
  histogramOf,
  noDistances,
  questionsCounted,
  separatingAndAgreeing,
  topicHistograms,
  type Distances,
} from './compare.compute.ts'
import { toComparedQuestion, toKeptFigures, toQuickFigures } from './compare.mapper.ts'
import { compareRepository } from './compare.repository.ts'
import { MAX_COMPARED_USERS, type CompareMany, type CompareUsers, type CompareUsersQuick, type FriendsCompare } from './compare.schemas.ts'

/** How many kept comparisons a user's latest_compare shows. */
export const LATEST_COMPARE_SIZE = 10

/** Comparing someone with themselves says nothing: 400 on userb. */
function refuseSelf(usera: number, userb: number): void {
  if (usera === userb) throw fieldError('userb', 'usera and userb must be different people.')
}

/** 404 unless both people can be compared (one statement). */
async function requirePeople(db: Kysely<Database>, ids: number[]): Promise<void> {
  const existing = await compareRepository(db).existingUsers(ids)
  if (ids.some((id) => !existing.has(id))) throw NotFound()
}

/** A signed-in caller's own comparisons (they are usera) are kept for their latest_compare and compare_check. */
async function keepForCaller(db: Kysely<Database>, caller: Caller | null, usera: number, compared: [number, Distances][]): Promise<void> {
  if (caller?.id !== usera) return
  await compareRepository(db).keep(
    usera,
    compared.map(([other, distances]) => toKeptFigures(other, distances)),
  )
}

/** compare_users: the full comparison of two people, with topics and the questions that separate and unite them most. */
export async function comparePair(db: Kysely<Database>, caller: Caller | null, usera: number, userb: number): Promise<CompareUsers> {
  refuseSelf(usera, userb)
  await requirePeople(db, [usera, userb])
  const repository = compareRepository(db)
  const common = await repository.commonAnswers(caller, usera, userb)
  const tags = await repository.tagsOf(common.map((c) => c.question_id))
  const distances = histogramOf(common.map((c) => c.distance))
  const lists = separatingAndAgreeing(common.filter((c) => c.shown))
  await keepForCaller(db, caller, usera, [[userb, distances]])
  return {
    usera,
    userb,
    questions_counted: questionsCounted(distances),
    difference_percent: differencePercent(distances),
    difference_distances: distances,
    topic_diffs: topicHistograms(new Map(common.map((c) => [c.question_id, c.distance])), tags),
    most_different: lists.most_different.map(toComparedQuestion),
    most_agreed: lists.most_agreed.map(toComparedQuestion),
  }
}

/** compare_users_quick: the quick figures of one pair. */
export async function comparePairQuick(
  db: Kysely<Database>,
  caller: Caller | null,
  usera: number,
  userb: number,
): Promise<CompareUsersQuick> {
  refuseSelf(usera, userb)
  await requirePeople(db, [usera, userb])
  const [row] = await compareRepository(db).distanceHistograms(caller?.id ?? null, usera, [userb])
  const distances = row?.distances ?? noDistances()
  await keepForCaller(db, caller, usera, [[userb, distances]])
  return { usera, userb, ...toQuickFigures(distances) }
}

/**
 * The ids of `users=`: distinct, in the order given; usera is left out (nobody is compared with themselves).
 * Items were checked to be whole numbers by the schema; any past the id range names nobody.
 */
function readUsers(text: string, usera: number): { ids: number[]; unknown: string | null } {
  const ids = new Set<number>()
  let unknown: string | null = null
  for (const part of text.split(',')) {
    const item = part.trim()
    if (item === '') continue
    const id = isIntegerText(item) ? Number(item) : NaN
    if (!Number.isSafeInteger(id) || id < 1 || id > INT4_MAX) {
      unknown ??= item
      continue
    }
    if (id !== usera) ids.add(id)
  }
  if (ids.size > MAX_COMPARED_USERS) throw fieldError('users', `Ensure this field has no more than ${MAX_COMPARED_USERS} elements.`)
  return { ids: [...ids], unknown }
}

/** compare_n_users_quick: one person against many, one statement for the comparison whatever their number. */
export async function compareMany(db: Kysely<Database>, caller: Caller | null, usera: number, usersText: string): Promise<CompareMany> {
  const { ids, unknown } = readUsers(usersText, usera)
  const repository = compareRepository(db)
  const existing = await repository.existingUsers([usera, ...ids])
  if (!existing.has(usera)) throw NotFound()
  const missing = unknown ?? ids.find((id) => !existing.has(id))
  if (missing !== undefined && missing !== null) throw fieldError('users', invalidPk(missing))
  const found = new Map((await repository.distanceHistograms(caller?.id ?? null, usera, ids)).map((row) => [row.user_id, row.distances]))
  const compared = ids.map((id): [number, Distances] => [id, found.get(id) ?? noDistances()])
  await keepForCaller(db, caller, usera, compared)
  return { results: Object.fromEntries(compared.map(([id, distances]) => [String(id), toQuickFigures(distances)])) }
}

/** users_fd_compare: the caller against each friend and each person they delegate to (their private answers count: they are theirs). */
export async function compareFriendsAndTrustees(db: Kysely<Database>, caller: Caller): Promise<FriendsCompare> {
  const repository = compareRepository(db)
  const relations = new Map<number, ('friend' | 'delegate')[]>()
  for (const { user_id, relation } of await repository.friendsAndTrustees(caller.id)) {
    relations.set(user_id, [...(relations.get(user_id) ?? []), relation])
  }
  const ids = [...relations.keys()]
  const found = new Map((await repository.distanceHistograms(caller.id, caller.id, ids)).map((row) => [row.user_id, row.distances]))
  return {
    results: Object.fromEntries(
      ids.map((id) => [String(id), { ...toQuickFigures(found.get(id) ?? noDistances()), relation: relations.get(id)! }]),
    ),
  }
}
