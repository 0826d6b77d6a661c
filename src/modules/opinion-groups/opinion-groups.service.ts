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
import { privateAuthors, publishOpinionGroups } from './opinion-groups.publish.ts'
import { weightedGroupShares } from './opinion-groups.weighting.ts'
import {
  keepRun,
  opinionGroupsRepository,
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

/** The answers for which `keep(index)` holds. */
function answersWhere(answers: ScopeAnswers, keep: (a: number) => boolean): ScopeAnswers {
  return {
    accountId: answers.accountId.filter((_, a) => keep(a)),
    questionId: answers.questionId.filter((_, a) => keep(a)),
    value: answers.value.filter((_, a) => keep(a)),
    private: answers.private.filter((_, a) => keep(a)),
  }
}

/**
 * Rule 1 for the whole scope (docs/privacy.md): the model is fitted on private answers only once k people hold one,
 * so that no group's centre or anyone's grouping moves by one person's private answers. Until then it is fitted on
 * the public answers, and the people whose answers are all private are placed on it, for themselves alone.
 */
function modelAnswers(answers: ScopeAnswers, k: number): { fitted: ScopeAnswers; outsiders: ScopeAnswers | null } {
  const authors = privateAuthors(answers)
  if (authors.size === 0 || authors.size >= k) return { fitted: answers, outsiders: null }
  const fitted = answersWhere(answers, (a) => answers.private[a] === 0)
  const inModel = new Set(fitted.accountId)
  return { fitted, outsiders: answersWhere(answers, (a) => !inModel.has(answers.accountId[a])) }
}

/** People placed on the model's plane without being in it: those who hold only private answers, while too few do. */
export type ProjectedPlaces = ReturnType<typeof projectParticipants>

/** Per database, the scopes whose check or recompute runs in this process now (one at a time each), and its end. */
const refreshingByDatabase = new WeakMap<object, Map<string, Promise<void>>>()
const refreshingOn = (db: object) => refreshingByDatabase.get(db) ?? refreshingByDatabase.set(db, new Map()).get(db)!

/** Resolves once the background checks under way on this database have ended: an app closing waits for them. */
export async function opinionGroupChecksSettled(db: object): Promise<void> {
  await Promise.all(refreshingOn(db).values())
}

/**
 * The scope's answers as the model's entries; the answers as read are released once the entries are made (for
 * 10 M answers, 130 MB the computation need not hold).
 */
async function readModel(
  repository: ReturnType<typeof opinionGroupsRepository>,
  questions: ScopeQuestion[],
  choices: ScopeChoice[],
  options: PublishingOptions,
) {
  const { likert, mcq } = byKind(questions)
  const expected = questions.reduce((sum, q) => sum + q.answers, 0)
  const answers = await repository.answers(likert, mcq, expected, options.answersPerRead)
  const { fitted, outsiders } = modelAnswers(answers, options.minCellSize)
  const groupQuestions: GroupQuestion[] = questions.map((q) =>
    q.subtype === 'mcq'
      ? { id: q.id, kind: 'choice', choices: choices.filter((c) => c.question_id === q.id).map((c) => c.id) }
      : { id: q.id, kind: 'likert' },
  )
  const model = {
    entries: { input: opinionInput(groupQuestions, fitted), private: entryFlags(groupQuestions, fitted.questionId, fitted.private) },
    hasPrivate: privateAuthors(fitted),
    outsiders: outsiders ? opinionInput(groupQuestions, outsiders) : null,
    // Counters follow public answers (docs/privacy.md): a private answer arriving must not move a published number.
    publicAnswers: answers.private.reduce((n, p) => n + (p ? 0 : 1), 0),
  }
  answers.release()
  return model
}

/**
 * Computes the scope's groups from every current answer, warm-started from the kept result, and keeps the new one
 * with everyone's place. Answers the kept run and the engine's whole result.
 */
export async function recomputeOpinionGroups(
  db: Kysely<Database>,
  scope: OpinionScope,
  scopeId: number,
  options: PublishingOptions,
): Promise<{ kept: KeptRun; published: PublishedGroups; result: OpinionGroupsResult; projected: ProjectedPlaces }> {
  const repository = opinionGroupsRepository(db)
  const [{ questions, choices }, kept] = await Promise.all([repository.questions(scope, scopeId), repository.keptModel(scope, scopeId)])
  const { likert, mcq } = byKind(questions)
  // The signature first: an answer arriving during the computation then makes the next check recompute.
  const signature = await repository.signature(likert, mcq)
  const model = await readModel(repository, questions, choices, options)
  const result = computeOpinionGroups(model.entries.input, {
    previous: (kept?.model as OpinionGroupsResult | undefined) ?? null,
  })
  const { published, counted } = publishOpinionGroups(result, questions, choices, model.entries, model.hasPrivate, options.minCellSize)
  const { participants } = result
  const shownLabels = new Set(published.groups.map((g) => g.label))
  const weighting = await weightedGroupShares(db, counted, options)
  published.weighting = { people: weighting.weighted, method: weighting.method }
  for (const group of published.groups) group.weighted_share = weighting.weighted > 0 ? (weighting.shares.get(group.label) ?? 0) : null
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
  const { outsiders, publicAnswers } = model
  const projected = outsiders ? projectParticipants(result, outsiders) : { accountIds: [], x: [], y: [] }
  if (outsiders) {
    projected.accountIds.forEach((userId, i) => {
      const label = nearestShown(published, projected.x[i], projected.y[i])
      places.push({ userId, clustered: false, group_label: label, x: projected.x[i], y: projected.y[i] })
    })
  }
  await db
    .transaction()
    .execute((trx) => keepRun(trx, { scope, scopeId, answersCounted: publicAnswers, signature, model: result, published, places }))
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

/** Whether the answers moved since the kept run: recomputes if so, else marks it checked. */
async function refresh(settings: OpinionGroupsSettings, scope: OpinionScope, scopeId: number, kept: KeptRun): Promise<void> {
  const repository = opinionGroupsRepository(settings.db)
  const { likert, mcq } = byKind((await repository.questions(scope, scopeId)).questions)
  if ((await repository.signature(likert, mcq)) === kept.signature) await repository.markChecked(scope, scopeId)
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
