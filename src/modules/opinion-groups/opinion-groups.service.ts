import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { OPINION_GROUPS_CHANNEL } from '../../db/data-changes.ts'
import { noticesAfterCommit } from '../../db/notices-after-commit.ts'
import {
  computeOpinionGroups,
  entryFlags,
  opinionInput,
  projectParticipants,
  type GroupQuestion,
  type OpinionGroupsResult,
} from '../../engines/opinion-groups/index.ts'
import { privateAuthors, publishOpinionGroups, type ModelEntries } from './opinion-groups.publish.ts'
import { weightedGroupShares } from './opinion-groups.weighting.ts'
import {
  keepOutsiders,
  keepRun,
  opinionGroupsRepository,
  type KeptModel,
  type KeptRun,
  type OpinionScope,
  type Place,
  type ScopeAnswers,
  type ScopeChoice,
  type ScopeQuestion,
} from './opinion-groups.repository.ts'
import type { OpinionGroups, PublishedGroups } from './opinion-groups.schemas.ts'

/** MIN_CELL_SIZE and WEIGHT_CAP: what may be published, and how far census weights may go. */
export interface PublishingOptions {
  minCellSize: number
  weightCap: number
  /** Answers read by one statement; a larger scope is read in windows of accounts (the repository's default). */
  answersPerRead?: number
}

export interface OpinionGroupsSettings extends PublishingOptions {
  db: Kysely<Database>
  /** How long a kept result is served before a request has it checked (and recomputed) in the background. */
  refreshMs: number
  onError: (error: unknown) => void
}

/** The ids of the likert and of the multiple-choice questions: their answers are read from two tables. */
function byKind(questions: ScopeQuestion[]): { likert: number[]; mcq: number[] } {
  return {
    likert: questions.filter((q) => q.subtype !== 'mcq').map((q) => q.id),
    mcq: questions.filter((q) => q.subtype === 'mcq').map((q) => q.id),
  }
}

/** The answers for which `keep(index)` holds (the answers themselves when it holds for all). */
function answersWhere(answers: ScopeAnswers, keep: (a: number) => boolean): ScopeAnswers {
  const kept = (_: number, a: number) => keep(a)
  if (answers.accountId.every(kept)) return answers
  return {
    accountId: answers.accountId.filter(kept),
    questionId: answers.questionId.filter(kept),
    value: answers.value.filter(kept),
    private: answers.private.filter(kept),
  }
}

function joined(a: ScopeAnswers, b: ScopeAnswers): ScopeAnswers {
  if (b.accountId.length === 0) return a
  const join = <T extends Int32Array | Uint8Array>(x: T, y: T, make: (n: number) => T): T => {
    const out = make(x.length + y.length)
    out.set(x)
    out.set(y, x.length)
    return out
  }
  return {
    accountId: join(a.accountId, b.accountId, (n) => new Int32Array(n)),
    questionId: join(a.questionId, b.questionId, (n) => new Int32Array(n)),
    value: join(a.value, b.value, (n) => new Int32Array(n)),
    private: join(a.private, b.private, (n) => new Uint8Array(n)),
  }
}

/** 32-bit avalanche (murmur3's finalizer). */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/**
 * What the model is fitted on, as a fingerprint that does not depend on the order the answers were read in: the
 * columns, k, and a multiset hash of every entry (account, column, value, private). Equal to the kept run's: the
 * model would be fitted on the same answers, so the kept run stays as it is.
 */
function fingerprint(entries: ModelEntries, k: number): string {
  const { accountIds, columns, answers } = entries.input
  let keys = 0x811c9dc5
  for (const column of columns) for (let i = 0; i < column.key.length; i++) keys = mix(keys ^ column.key.charCodeAt(i))
  let a = 0
  let b = 0
  let c = 0
  for (let e = 0; e < answers.participant.length; e++) {
    let h = mix(accountIds[answers.participant[e]] + 0x9e3779b9)
    h = mix(h ^ Math.imul(answers.column[e] + 1, 0x85ebca6b))
    h = mix(h ^ ((answers.value[e] + 3) | (entries.private[e] << 3)))
    a = (a + h) >>> 0
    const g = mix(h ^ 0x27d4eb2f)
    b = (b + g) >>> 0
    c = (c ^ mix(g + 0x165667b1)) >>> 0
  }
  return [k, columns.length, keys, accountIds.length, answers.participant.length, a, b, c].map((n) => n.toString(36)).join(':')
}

/** People placed on the model's plane without being in it: those whose private answers it does not take. */
export type ProjectedPlaces = ReturnType<typeof projectParticipants>

/** Per database, the scopes whose check or recompute runs in this process now (one at a time each), and its end. */
const refreshingByDatabase = new WeakMap<object, Map<string, Promise<void>>>()
const refreshingOn = (db: object) => refreshingByDatabase.get(db) ?? refreshingByDatabase.set(db, new Map()).get(db)!

/** Resolves once the background checks under way on this database have ended: an app closing waits for them. */
export async function opinionGroupChecksSettled(db: object): Promise<void> {
  await Promise.all(refreshingOn(db).values())
}

/** The model's input from the answers it takes: every public one, and the private ones of `admitted` people. */
function modelOf(groupQuestions: GroupQuestion[], answers: ScopeAnswers, admitted: Set<number>, k: number) {
  const fitted = answersWhere(answers, (a) => answers.private[a] === 0 || admitted.has(answers.accountId[a]))
  const entries: ModelEntries = {
    input: opinionInput(groupQuestions, fitted),
    private: entryFlags(groupQuestions, fitted.questionId, fitted.private),
  }
  const omitted = answers.accountId.length - fitted.accountId.length
  return { entries, hasPrivate: privateAuthors(fitted), fingerprint: fingerprint(entries, k), omitted }
}

type Model = ReturnType<typeof modelOf>
type Publication = ReturnType<typeof publishOpinionGroups>
/** Fits of one recompute at most, the last on public answers alone. */
const MAX_FITS = 5

/**
 * The groups see only what may be published (docs/privacy.md). The model takes private answers from the k-th
 * person holding one, and then only those of the people the published groups count: it is fitted with every such
 * person, the people no shown group counts lose their private answers (keeping their public ones), and it is fitted
 * again, until everyone it holds a private answer of is counted, or fewer than k are left and it takes none. So the
 * model never holds a private answer nobody counts, and one that ends up uncounted moves neither the groups, nor
 * their places, nor their time (unless it changes whose other private answers are counted, k people's together).
 *
 * Each fit starts from the kept run, and one whose input is the kept run's ends the search with it: the same
 * answers are not recomputed (a warm start from another run moves the centres' last digits and k's smoothing).
 * `settle` is called once with the final model's input, before the engine runs when it takes no private answer (the
 * answers as read can then go: 130 MB for 10 M answers).
 */
function fitPublished<Settled>(
  groupQuestions: GroupQuestion[],
  answers: ScopeAnswers,
  questions: ScopeQuestion[],
  choices: ScopeChoice[],
  kept: KeptModel | undefined,
  k: number,
  settle: (model: Model) => Settled,
): { model: Model; settled: Settled; fitted: { result: OpinionGroupsResult; publication: Publication } | null } {
  const authors = privateAuthors(answers)
  const admitted = new Set(authors.size >= k ? authors : [])
  const previous = (kept?.model as OpinionGroupsResult | undefined) ?? null
  for (let fit = 1; ; fit++) {
    const model = modelOf(groupQuestions, answers, admitted, k)
    const last = admitted.size === 0 || kept?.published_input === model.fingerprint
    const settled = last ? settle(model) : undefined
    if (kept?.published_input === model.fingerprint) return { model, settled: settled!, fitted: null }
    const result = computeOpinionGroups(model.entries.input, { previous })
    const publication = publishOpinionGroups(result, questions, choices, model.entries, model.hasPrivate, k)
    const uncounted = [...model.hasPrivate].filter((account) => !publication.countedPrivate.has(account))
    if (uncounted.length === 0) return { model, settled: last ? settled! : settle(model), fitted: { result, publication } }
    for (const account of uncounted) admitted.delete(account)
    // Each fit of a large scope takes seconds: past a few, the model takes public answers alone, which always fit.
    if (admitted.size < k || fit + 1 >= MAX_FITS) admitted.clear()
  }
}

/**
 * Computes the scope's groups from the answers they may count (fitPublished), warm-started from the kept result,
 * and keeps the new run with everyone's place; when those answers are the kept run's, keeps it as it is and places
 * anew only the people the model leaves out. Answers the kept run and the engine's whole result.
 */
export async function recomputeOpinionGroups(
  db: Kysely<Database>,
  scope: OpinionScope,
  scopeId: number,
  options: PublishingOptions,
): Promise<{ kept: KeptRun; published: PublishedGroups; result: OpinionGroupsResult; projected: ProjectedPlaces }> {
  const k = options.minCellSize
  const repository = opinionGroupsRepository(db)
  const [{ questions, choices }, kept] = await Promise.all([repository.questions(scope, scopeId), repository.keptModel(scope, scopeId)])
  const { likert, mcq } = byKind(questions)
  // The signatures first: an answer arriving during the computation then makes the next check recompute.
  const signature = await repository.signature(likert, mcq, k)
  const expected = questions.reduce((sum, q) => sum + q.answers, 0)
  const [answers, unreleased] = await Promise.all([
    repository.answers(likert, mcq, expected, options.answersPerRead),
    repository.unreleasedAnswers(likert, mcq),
  ])
  const waiting = new Set(unreleased.accountId)
  const groupQuestions: GroupQuestion[] = questions.map((q) =>
    q.subtype === 'mcq'
      ? { id: q.id, kind: 'choice', choices: choices.filter((c) => c.question_id === q.id).map((c) => c.id) }
      : { id: q.id, kind: 'likert' },
  )
  // Counters follow public answers (docs/privacy.md): a private answer arriving must not move a published number.
  const publicAnswers = answers.private.reduce((n, p) => n + (p ? 0 : 1), 0)
  const fit = fitPublished(groupQuestions, answers, questions, choices, kept, k, (final) => {
    let outsiders = null
    if (final.omitted > 0 || waiting.size > 0) {
      const inModel = new Set(Array.from(final.entries.input.accountIds))
      // People left out are placed for themselves from their answers as they are now, unreleased changes included.
      const outside = joined(
        answersWhere(answers, (a) => !inModel.has(answers.accountId[a]) && !waiting.has(answers.accountId[a])),
        answersWhere(unreleased, (a) => !inModel.has(unreleased.accountId[a])),
      )
      if (outside.accountId.length > 0) outsiders = opinionInput(groupQuestions, outside)
    }
    answers.release()
    return outsiders
  })
  const { model, fitted, settled: outsiders } = fit

  const result = fitted?.result ?? (kept!.model as OpinionGroupsResult)
  const published = fitted?.publication.published ?? (kept!.published as PublishedGroups)
  const projected = outsiders ? projectParticipants(result, outsiders) : { accountIds: [], x: [], y: [] }
  const outsiderPlaces = projected.accountIds.map((userId, i) => ({
    userId,
    clustered: false,
    group_label: nearestShown(published, projected.x[i], projected.y[i]),
    x: projected.x[i],
    y: projected.y[i],
  }))
  if (!fitted) {
    const stored = { scope, scopeId, signature: signature.published, answersSignature: signature.answers }
    const modelAccounts = result.participants.accountIds
    await db
      .transaction()
      .execute((trx) => keepOutsiders(trx, { ...stored, publishedInput: model.fingerprint, modelAccounts, outsiders: outsiderPlaces }))
    return { kept: (await repository.kept(scope, scopeId))!, published, result, projected }
  }

  const weighting = await weightedGroupShares(db, fitted.publication.counted, options)
  published.weighting = { people: weighting.weighted, method: weighting.method }
  for (const group of published.groups) group.weighted_share = weighting.weighted > 0 ? (weighting.shares.get(group.label) ?? 0) : null
  const shownLabels = new Set(published.groups.map((g) => g.label))
  const { participants } = result
  const places: ({ userId: number } & Place)[] = participants.accountIds.map((userId, i) => {
    const clustered = participants.group[i] >= 0
    const label = clustered ? participants.group[i] : nearestShown(published, participants.x[i], participants.y[i])
    return {
      userId,
      clustered,
      group_label: label !== null && shownLabels.has(label) ? label : null,
      x: participants.x[i],
      y: participants.y[i],
    }
  })
  places.push(...outsiderPlaces)
  await db.transaction().execute((trx) =>
    keepRun(trx, {
      scope,
      scopeId,
      answersCounted: publicAnswers,
      signature: signature.published,
      answersSignature: signature.answers,
      publishedInput: model.fingerprint,
      model: result,
      published,
      places,
    }),
  )
  const now = (await repository.kept(scope, scopeId))!
  if (scope === 'collection' && groupsMoved(kept?.published as PublishedGroups | undefined, published))
    noticesAfterCommit(db).send([{ channel: OPINION_GROUPS_CHANNEL, payload: groupsNotice(scopeId, now.computed_at, published) }])
  return { kept: now, published, result, projected }
}

const groupSizes = (published: PublishedGroups) => JSON.stringify(published.groups.map((g) => [g.label, g.size]))

/** Whether the shown groups differ (in number, labels or sizes) from the kept ones: what a live event is sent for. */
function groupsMoved(before: PublishedGroups | undefined, after: PublishedGroups): boolean {
  return before === undefined || groupSizes(before) !== groupSizes(after)
}

/** The collection's live event: the groups as published, in a few hundred bytes (a notice holds 8,000). */
function groupsNotice(collectionId: number, computedAt: Date, published: PublishedGroups): string {
  return JSON.stringify({
    id: collectionId,
    computed_at: computedAt.toISOString(),
    participants: published.participants,
    groups: published.groups.map((g) => ({ label: g.label, size: g.size, share: g.share })),
  })
}

/** The shown group whose centre is nearest: where someone with too few answers leans. */
function nearestShown(published: PublishedGroups, x: number, y: number): number | null {
  let best: number | null = null
  let distance = Infinity
  for (const group of published.groups) {
    const d = (group.x - x) ** 2 + (group.y - y) ** 2
    if (d < distance) [best, distance] = [group.label, d]
  }
  return best
}

/** Whether the answers moved since the kept run: recomputes if so (which may keep it as it is), else marks it checked. */
async function refresh(settings: OpinionGroupsSettings, scope: OpinionScope, scopeId: number, kept: KeptRun): Promise<void> {
  const repository = opinionGroupsRepository(settings.db)
  const { likert, mcq } = byKind((await repository.questions(scope, scopeId)).questions)
  const signature = await repository.signature(likert, mcq, settings.minCellSize)
  if (signature.published === kept.signature && signature.answers === kept.answers_signature) await repository.markChecked(scope, scopeId)
  else await recomputeOpinionGroups(settings.db, scope, scopeId, settings)
}

/**
 * What kept runs publish, by scope, as last read in this process: a request reads the run's stamp (a few bytes) and
 * reads and parses the published groups (hundreds of kilobytes on a large scope) only when the run is newer.
 */
interface PublishedRun {
  computedAt: Date
  answersCounted: number
  published: PublishedGroups
}
/** Per database, by scope. */
const publishedCaches = new WeakMap<Kysely<Database>, Map<string, PublishedRun>>()
const PUBLISHED_CACHE_SCOPES = 64

function remember(db: Kysely<Database>, key: string, run: PublishedRun): void {
  const publishedCache = publishedCaches.get(db) ?? publishedCaches.set(db, new Map()).get(db)!
  publishedCache.delete(key)
  publishedCache.set(key, run)
  // The least recently stored goes first (a Map keeps insertion order).
  if (publishedCache.size > PUBLISHED_CACHE_SCOPES) publishedCache.delete(publishedCache.keys().next().value!)
}

async function publishedRun(
  db: Kysely<Database>,
  key: string,
  scope: OpinionScope,
  scopeId: number,
  stamp: KeptRun,
): Promise<PublishedRun> {
  const cached = publishedCaches.get(db)?.get(key)
  if (cached && cached.computedAt.getTime() === stamp.computed_at.getTime()) return cached
  // Read after the stamp: a run kept meanwhile is newer, and is served whole, its own time and count with it.
  const row = (await opinionGroupsRepository(db).published(scope, scopeId))!
  const run = { computedAt: row.computed_at, answersCounted: row.answers_counted, published: row.published as PublishedGroups }
  remember(db, key, run)
  return run
}

/**
 * The scope's groups as kept, and the caller's own place. The first request computes them; later ones are served
 * the kept result, and one whose result was checked longer than `refreshMs` ago has it checked in the background
 * (recomputed when any answer changed), so no request waits on a recompute but the first. Undefined: no such scope.
 */
export async function opinionGroupsFor(
  settings: OpinionGroupsSettings,
  scope: OpinionScope,
  scopeId: number,
  callerId: number | null,
): Promise<OpinionGroups | undefined> {
  const repository = opinionGroupsRepository(settings.db)
  if (!(await repository.scopeExists(scope, scopeId))) return undefined
  const key = `${scope}:${scopeId}`
  let kept = await repository.kept(scope, scopeId)
  if (!kept) {
    const computed = await recomputeOpinionGroups(settings.db, scope, scopeId, settings)
    kept = computed.kept
    remember(settings.db, key, { computedAt: kept.computed_at, answersCounted: kept.answers_counted, published: computed.published })
  }
  const refreshing = refreshingOn(settings.db)
  if (Date.now() - kept.checked_at.getTime() > settings.refreshMs && !refreshing.has(key)) {
    const check = refresh(settings, scope, scopeId, kept)
      .catch(settings.onError)
      .finally(() => refreshing.delete(key))
    refreshing.set(key, check)
  }
  const [run, place] = await Promise.all([
    publishedRun(settings.db, key, scope, scopeId, kept),
    callerId === null ? undefined : repository.place(scope, scopeId, callerId),
  ])
  return {
    scope,
    scope_id: scopeId,
    computed_at: run.computedAt.toISOString(),
    answers_counted: run.answersCounted,
    ...run.published,
    me: place ? { group: place.group_label, clustered: place.clustered, x: place.x, y: place.y } : null,
  }
}
