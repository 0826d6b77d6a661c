import type { Kysely } from 'kysely'
import { foldFigureDeltas } from '../../db/answer-gate.ts'
import type { Database } from '../../db/database.ts'
import { countColumns, emptyFamily, familyFromRow, withAnswer, type FamilyTally } from '../statistics/tally.ts'
import { CompactResolver, EMPTY_LIST, type DelegationList } from './compact.ts'
import { liquidRepository, type Slot } from './liquid.repository.ts'
import type { Db } from '../../db/types.ts'
import { liquidRebuildRepository, type DelegationRow } from './liquid-rebuild.repository.ts'

/**
 * Full resolution: reads each question's answers and the delegations that apply to it once, resolves
 * them in memory (compact.ts), and compares (or replaces) the stored weights and liquid
 * figures. The tag delegations are read once for all questions. Rebuilds after tag edits of answered
 * questions, and backs `recompute --liquid`, `check` and the seed.
 */
export interface LiquidDifference {
  question: number
  what: string
  stored: number
  resolved: number
}

const BATCH = 100
const DELEGATION_CHUNK = 200_000
/**
 * A full resolution keeps the size of every block of at least this many people (migration 031): walking one costs
 * about 14 µs a person (docs/performance.md), so below this the walk costs less than the rest of an answer.
 */
export const KEPT_BLOCKS_FROM = 100

/** Active tag delegations by active accounts on these tags (all tags when null), grouped by tag. */
export async function loadTagDelegations(db: Db, tagIds: number[] | null): Promise<Map<number, DelegationList>> {
  const rows: (DelegationRow & { tag_id: number })[] = []
  let after = { tag: 0, id: 0 }
  for (;;) {
    const chunk = await liquidRebuildRepository(db).tagDelegations(tagIds, after, DELEGATION_CHUNK)
    // One by one: spreading a chunk this large as arguments overflows the stack.
    for (const row of chunk) rows.push(row)
    if (chunk.length < DELEGATION_CHUNK) break
    const last = chunk[chunk.length - 1]
    after = { tag: last.tag_id, id: last.id }
  }
  const lists = new Map<number, DelegationList>()
  for (let start = 0; start < rows.length;) {
    let end = start
    while (end < rows.length && rows[end].tag_id === rows[start].tag_id) end++
    lists.set(rows[start].tag_id, toList(rows.slice(start, end)))
    start = end
  }
  return lists
}

function toList(rows: DelegationRow[]): DelegationList {
  return {
    users: Int32Array.from(rows, (row) => row.user_id),
    trustees: Int32Array.from(rows, (row) => row.trustee_id ?? -1),
    priorities: Int32Array.from(rows, (row) => row.priority),
    ids: Int32Array.from(rows, (row) => row.id),
  }
}

function groupBy<T extends { question_id: number }>(rows: T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>()
  for (const row of rows) {
    const group = groups.get(row.question_id)
    if (group) group.push(row)
    else groups.set(row.question_id, [row])
  }
  return groups
}

/** One batch's answers, question delegations, tags and stored families. */
export async function loadBatch(db: Db, questionIds: number[]) {
  const repository = liquidRebuildRepository(db)
  const [answers, delegations, tags, { questions, choices }, kept] = await Promise.all([
    repository.answers(questionIds),
    repository.questionDelegations(questionIds),
    repository.questionTags(questionIds),
    repository.storedLiquid(questionIds),
    repository.keptBlocks(questionIds),
  ])
  const stored = new Map<number, Map<string, FamilyTally>>(questionIds.map((id) => [id, new Map()]))
  for (const row of questions) stored.get(Number(row.id))!.set(`questions:${row.id}`, familyFromRow(row, 'liquid'))
  for (const row of choices) stored.get(Number(row.question_id))!.set(`question_choices:${row.id}`, familyFromRow(row, 'liquid'))
  return { answers: groupBy(answers), delegations: groupBy(delegations), tags: groupBy(tags), stored, kept: groupBy(kept) }
}

/**
 * Resolves the given questions (every question when null). With `write`, stores what differs and keeps the size of
 * every block of at least `keptFrom` people anew; without, also compares each kept size. The caller holds the
 * questions' locks, or a snapshot when only checking.
 */
export async function resolveQuestions(
  db: Db,
  questionIds: number[] | null,
  write: boolean,
  onProgress?: (done: number, total: number) => void,
  keptFrom = KEPT_BLOCKS_FROM,
): Promise<LiquidDifference[]> {
  const reads = liquidRebuildRepository(db)
  const ids = questionIds ?? (await reads.questionIds())
  if (ids.length === 0) return []
  const tagLists = await loadTagDelegations(db, questionIds === null ? null : await reads.tagsOf(ids))
  const resolver = new CompactResolver(await reads.maxUserId())
  const differences: LiquidDifference[] = []
  for (let start = 0; start < ids.length; start += BATCH) {
    const batch = ids.slice(start, start + BATCH)
    // A repair sets counts outright: the answers' deltas join the stored counts first (the gate is held).
    if (write) await foldFigureDeltas(db, true, batch)
    const loaded = await loadBatch(db, batch)
    const changed = { question_votes: new Map<number, number>(), question_choice_votes: new Map<number, number>() }
    const toStore: [Slot['target'], number, FamilyTally][] = []
    const blocks: { question_id: number; user_id: number; intree: number }[] = []
    for (const questionId of batch) {
      const answers = loaded.answers.get(questionId) ?? []
      const weights = resolver.resolve({
        answerUsers: Int32Array.from(answers, (a) => a.user_id),
        answerCarries: Uint8Array.from(answers, (a) => (a.carries ? 1 : 0)),
        questionDelegations: loaded.delegations.has(questionId) ? toList(loaded.delegations.get(questionId)!) : EMPTY_LIST,
        tagDelegations: (loaded.tags.get(questionId) ?? []).map((row) => tagLists.get(row.tag_id) ?? EMPTY_LIST),
      })
      const kept = resolver.blocks(keptFrom)
      kept.users.forEach((user, i) => blocks.push({ question_id: questionId, user_id: user, intree: kept.sizes[i] }))
      for (const row of loaded.kept.get(questionId) ?? []) {
        const size = resolver.blockSize(row.user_id)
        if (size !== row.intree)
          differences.push({ question: questionId, what: `liquid_blocks user ${row.user_id}`, stored: row.intree, resolved: size })
      }
      const families = new Map<string, FamilyTally>()
      answers.forEach((answer, i) => {
        if (weights[i] !== answer.liquid_weight) {
          changed[answer.vote_table].set(answer.id, weights[i])
          differences.push({
            question: questionId,
            what: `${answer.vote_table} ${answer.id} liquid_weight`,
            stored: answer.liquid_weight,
            resolved: weights[i],
          })
        }
        const target = `${answer.vote_table === 'question_votes' ? 'questions' : 'question_choices'}:${answer.target_id}`
        families.set(target, withAnswer(families.get(target) ?? emptyFamily(), answer.skipped ? null : answer.value, weights[i], 1))
      })
      for (const [target, family] of loaded.stored.get(questionId)!) {
        const resolved = families.get(target) ?? emptyFamily()
        const before = [...family.counts, family.skipped]
        const after = [...resolved.counts, resolved.skipped]
        const [table, id] = target.split(':') as [Slot['target'], string]
        countColumns('liquid').forEach((name, i) => {
          if (before[i] !== after[i])
            differences.push({ question: questionId, what: `${table} ${id} ${name}`, stored: before[i], resolved: after[i] })
        })
        if (before.some((count, i) => count !== after[i])) toStore.push([table, Number(id), resolved])
      }
    }
    if (write) {
      const repository = liquidRepository(db)
      await repository.setWeights('question_votes', changed.question_votes)
      await repository.setWeights('question_choice_votes', changed.question_choice_votes)
      for (const [table, id, family] of toStore) await repository.storeLiquid(table, id, family)
      await reads.keepBlocks(batch, blocks)
    }
    onProgress?.(Math.min(start + BATCH, ids.length), ids.length)
  }
  return differences
}

/** One question, resolved in full inside the caller's transaction (which holds its lock when writing). */
export async function rebuildQuestionLiquid(db: Db, questionId: number, write: boolean): Promise<LiquidDifference[]> {
  return resolveQuestions(db, [questionId], write)
}

/**
 * Every question. Inside a transaction everything runs in it. Otherwise a check reads one consistent
 * snapshot without blocking anyone, and a repair locks every question first, so no change interleaves.
 */
export async function rebuildAllLiquid(
  db: Kysely<Database>,
  write: boolean,
  onProgress?: (done: number, total: number) => void,
  keptFrom = KEPT_BLOCKS_FROM,
): Promise<LiquidDifference[]> {
  if (db.isTransaction) return resolveQuestions(db, null, write, onProgress, keptFrom)
  if (!write)
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) => resolveQuestions(trx, null, false, onProgress, keptFrom))
  return db.transaction().execute(async (trx) => {
    await liquidRepository(trx).lockQuestions(null)
    return resolveQuestions(trx, null, true, onProgress, keptFrom)
  })
}
