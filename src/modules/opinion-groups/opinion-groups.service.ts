import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { OPINION_GROUPS_CHANNEL } from '../../db/data-changes.ts'
import { noticesAfterCommit } from '../../db/notices-after-commit.ts'
import {
  computeOpinionGroups,
  entryFlags,
  opinionInput,
  polisCodeAt,
  projectParticipants,
  withZeroedStatements,
  type GroupQuestion,
  type OpinionGroupOptions,
  type OpinionGroupsResult,
  type PolisCode,
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
import { opinionGroupsRecomputed } from '../../core/metrics.ts'

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
function fingerprint(entries: ModelEntries, k: number, map: string): string {
  const { accountIds, columns, answers, zeroed } = entries.input
  let keys = 0x811c9dc5
  for (const key of [map, ...columns.map((column) => column.key)]) for (let i = 0; i < key.length; i++) keys = mix(keys ^ key.charCodeAt(i))
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
  // Zeroed statements: how many each participant answered.
  let z = zeroed?.statements ?? 0
  if (zeroed)
    for (let p = 0; p < accountIds.length; p++) if (zeroed.answered[p] > 0) z = (z + mix(accountIds[p] ^ mix(zeroed.answered[p]))) >>> 0
  return [k, columns.length, keys, accountIds.length, answers.participant.length, a, b, c, z].map((n) => n.toString(36)).join(':')
}

/** Someone's place as kept: their group as shown (or the nearest shown), and where they sit. */
type PlaceOf = { userId: number } & Place

/** People placed on the model's plane without being in it: those whose private answers it does not take. */
export type ProjectedPlaces = ReturnType<typeof projectParticipants>

/** Per database, the scopes whose check or recompute runs in this process now (one at a time each), and its end. */
const refreshingByDatabase = new WeakMap<object, Map<string, Promise<void>>>()
const refreshingOn = (db: object) => refreshingByDatabase.get(db) ?? refreshingByDatabase.set(db, new Map()).get(db)!

/** Resolves once the background checks under way on this database have ended: an app closing waits for them. */
export async function opinionGroupChecksSettled(db: object): Promise<void> {
  await Promise.all(refreshingOn(db).values())
}

/**
 * A collection imported from Pol.is is drawn on Pol.is's map (docs/opinion-groups.md): its statements moderated
 * out or meta, kept out of the questions, count as its code at the conversation's date counted them, as zeroed
 * statements or (before 2017-02-27) as ordinary columns after the questions' (which nothing publishes).
 */
export interface PolisModel {
  /** The date of the code whose map is drawn: the conversation's last activity, or the one asked for. */
  date: Date
  code: PolisCode
  questions: GroupQuestion[]
  answers: ScopeAnswers
}

/** The model's input from the answers it takes: every public one, and the private ones of `admitted` people. */
function modelOf(groupQuestions: GroupQuestion[], answers: ScopeAnswers, admitted: Set<number>, k: number, polis: PolisModel | null) {
  const fitted = answersWhere(answers, (a) => answers.private[a] === 0 || admitted.has(answers.accountId[a]))
  const asColumns = polis?.code.hidden === 'columns'
  const questions = asColumns ? [...groupQuestions, ...polis.questions] : groupQuestions
  const taken = asColumns ? joined(fitted, polis.answers) : fitted
  const input = opinionInput(questions, taken)
  const entries: ModelEntries = {
    input: polis && !asColumns ? withZeroedStatements(input, polis.answers) : input,
    private: entryFlags(questions, taken.questionId, taken.private),
  }
  const omitted = answers.accountId.length - fitted.accountId.length
  const map = JSON.stringify(polis?.code ?? null)
  return { entries, hasPrivate: privateAuthors(fitted), fingerprint: fingerprint(entries, k, map), omitted }
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
  scope: ScopeInput,
  kept: KeptModel | undefined,
  k: number,
  research: ResearchOptions | null,
  settle: (model: Model) => Settled,
): { model: Model; settled: Settled; fitted: { result: OpinionGroupsResult; publication: Publication } | null } {
  const { groupQuestions, answers, questions, choices, polis } = scope
  const authors = privateAuthors(answers)
  const admitted = new Set(authors.size >= k ? authors : [])
  const previous = (kept?.model as OpinionGroupsResult | undefined) ?? null
  // A view for research is always computed afresh, warm-started from the kept run so that labels match.
  const keptInput = research ? undefined : kept?.published_input
  const options: OpinionGroupOptions = { previous, map: polis?.code.map, groupCount: research?.groupCount }
  for (let fit = 1; ; fit++) {
    const model = modelOf(groupQuestions, answers, admitted, k, polis)
    const last = admitted.size === 0 || keptInput === model.fingerprint
    const settled = last ? settle(model) : undefined
    if (keptInput === model.fingerprint) return { model, settled: settled!, fitted: null }
    const result = computeOpinionGroups(model.entries.input, options)
    const publication = publishOpinionGroups(result, questions, choices, model.entries, model.hasPrivate, k)
    const uncounted = [...model.hasPrivate].filter((account) => !publication.countedPrivate.has(account))
    if (uncounted.length === 0) return { model, settled: last ? settled! : settle(model), fitted: { result, publication } }
    for (const account of uncounted) admitted.delete(account)
    // Each fit of a large scope takes seconds: past a few, the model takes public answers alone, which always fit.
    if (admitted.size < k || fit + 1 >= MAX_FITS) admitted.clear()
  }
}

/** The groups at a chosen k, or a Pol.is conversation on another version's map: computed now, never kept. */
export interface ResearchOptions {
  /** The groups at this k (fewer when the data cannot give them) rather than the k chosen. */
  groupCount?: number
  /** A collection imported from Pol.is drawn as Pol.is's code of this date drew it, not of its last activity. */
  polisCode?: Date
}

/** What a scope's model is fitted from. */
interface ScopeInput {
  questions: ScopeQuestion[]
  choices: ScopeChoice[]
  groupQuestions: GroupQuestion[]
  answers: ScopeAnswers
  polis: PolisModel | null
}

/** How the map was drawn, in words (the published `map_rules`). */
function mapRules(polis: PolisModel | null): string {
  if (!polis) return "the service's: a missing answer holds the question's mean"
  const { hidden, map } = polis.code
  return (
    `Pol.is's, as its code of ${polis.date.toISOString().slice(0, 10)} drew it: statements moderated out or meta ` +
    (hidden === 'zeroed' ? 'zeroed and counted as answered by everyone' : 'kept as ordinary columns') +
    `; a missing vote ${map.missing === 'zero' ? 'is 0' : "holds the statement's mean"}` +
    (map.zeroedCountAsAnswered ? '; who is grouped counts the zeroed statements as answered by everyone' : '')
  )
}

/** A collection imported from Pol.is: its hidden statements' public answers, and its code's map. */
async function polisModel(db: Kysely<Database>, scope: OpinionScope, scopeId: number, codeDate?: Date): Promise<PolisModel | null> {
  if (scope !== 'collection') return null
  const repository = opinionGroupsRepository(db)
  const conversation = await repository.polisCollection(scopeId)
  if (!conversation) return null
  const read = await repository.answers(conversation.hidden, [], 0)
  // Imported answers are public; the hidden statements take no others.
  const answers = answersWhere(read, (a) => read.private[a] === 0)
  const date = codeDate ?? conversation.lastActivity
  return {
    date,
    code: polisCodeAt(date),
    questions: conversation.hidden.map((id) => ({ id, kind: 'likert' })),
    answers,
  }
}

/**
 * Computes the scope's groups from the answers they may count (fitPublished), warm-started from the kept result,
 * and keeps the new run with everyone's place; when those answers are the kept run's, keeps it as it is and places
 * anew only the people the model leaves out. Answers the kept run and the engine's whole result. With `research`
 * (a chosen k, another Pol.is code), the groups are computed afresh and nothing is kept: `kept` is null.
 */
export async function recomputeOpinionGroups(
  db: Kysely<Database>,
  scope: OpinionScope,
  scopeId: number,
  options: PublishingOptions,
  research: ResearchOptions | null = null,
): Promise<Recomputed> {
  // Counted with its time (civic_opinion_group_recomputes_total, civic_opinion_group_recompute_duration_seconds).
  const started = performance.now()
  const run = { engineRan: false }
  try {
    const recomputed = await recompute(db, scope, scopeId, options, research, run)
    opinionGroupsRecomputed(run.engineRan ? 'computed' : 'unchanged', (performance.now() - started) / 1000)
    return recomputed
  } catch (error) {
    opinionGroupsRecomputed('failed', (performance.now() - started) / 1000)
    throw error
  }
}

interface Recomputed {
  kept: KeptRun | null
  published: PublishedGroups
  result: OpinionGroupsResult
  projected: ProjectedPlaces
  places: PlaceOf[]
  answersCounted: number
}

async function recompute(
  db: Kysely<Database>,
  scope: OpinionScope,
  scopeId: number,
  options: PublishingOptions,
  research: ResearchOptions | null,
  run: { engineRan: boolean },
): Promise<Recomputed> {
  const k = options.minCellSize
  const repository = opinionGroupsRepository(db)
  const [{ questions, choices }, kept, polis] = await Promise.all([
    repository.questions(scope, scopeId),
    repository.keptModel(scope, scopeId),
    polisModel(db, scope, scopeId, research?.polisCode),
  ])
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
  const fit = fitPublished({ questions, choices, groupQuestions, answers, polis }, kept, k, research, (final) => {
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
  run.engineRan = fitted !== null

  const result = fitted?.result ?? (kept!.model as OpinionGroupsResult)
  const published = fitted?.publication.published ?? (kept!.published as PublishedGroups)
  if (fitted) published.map_rules = mapRules(polis)
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
    return { kept: (await repository.kept(scope, scopeId))!, published, result, projected, places: [], answersCounted: publicAnswers }
  }

  const weighting = await weightedGroupShares(db, fitted.publication.counted, options)
  published.weighting = { people: weighting.weighted, method: weighting.method }
  for (const group of published.groups) group.weighted_share = weighting.weighted > 0 ? (weighting.shares.get(group.label) ?? 0) : null
  const shownLabels = new Set(published.groups.map((g) => g.label))
  const { participants } = result
  const places: PlaceOf[] = participants.accountIds.map((userId, i) => {
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
  if (research) return { kept: null, published, result, projected, places, answersCounted: publicAnswers }
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
  return { kept: now, published, result, projected, places, answersCounted: publicAnswers }
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
    kept = computed.kept!
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

/**
 * The groups at `groupCount` (staff's `?groups=K`), for comparison and research: computed now from the answers the
 * published groups may count, under the same disclosure rules, and never kept; the caller's own place among them.
 * Undefined: no such scope.
 */
export async function opinionGroupsAt(
  settings: PublishingOptions & { db: Kysely<Database> },
  scope: OpinionScope,
  scopeId: number,
  callerId: number | null,
  groupCount: number,
): Promise<OpinionGroups | undefined> {
  if (!(await opinionGroupsRepository(settings.db).scopeExists(scope, scopeId))) return undefined
  const { published, places, answersCounted } = await recomputeOpinionGroups(settings.db, scope, scopeId, settings, { groupCount })
  const own = callerId === null ? undefined : places.find((place) => place.userId === callerId)
  return {
    scope,
    scope_id: scopeId,
    computed_at: new Date().toISOString(),
    answers_counted: answersCounted,
    ...published,
    me: own ? { group: own.group_label, clustered: own.clustered, x: own.x, y: own.y } : null,
  }
}
