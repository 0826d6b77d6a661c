/**
 * What of an opinion-groups result may be published (docs/opinion-groups.md, docs/privacy.md). Pure. The model is
 * fitted on the private answers of the people this counts, and no others (opinion-groups.service.ts); what leaves
 * it goes through the disclosure rules:
 * - a group is a population of people: those with a private answer count in it (its size, centre, cells, share and
 *   squares) only once it holds k of them, and it is shown only when it counts k people; the totals are the sums of
 *   what is shown, so no complement tells more;
 * - each (group, question or choice) is a cell of respondents: its private answers count only once it holds k of
 *   them, and it is shown only when what it counts reaches k (src/disclosure/release.ts);
 * - representative questions, consensus and divisiveness are computed from the shown cells only;
 * - the map shows how many people sit in each square of a fixed grid, a square of fewer than k not at all;
 * - nobody's own position is published: a caller learns only their own.
 */
import { releaseGroup, releaseSiblings } from '../../disclosure/release.ts'
import { agreeRate } from '../../engines/opinion-groups/consensus.ts'
import { columnRepness, selectRepresentative } from '../../engines/opinion-groups/repness.ts'
import type { OpinionGroupsResult, OpinionInput } from '../../engines/opinion-groups/index.ts'
import type { ScopeAnswers, ScopeChoice, ScopeQuestion } from './opinion-groups.repository.ts'
import type { PublishedColumn, PublishedGroups } from './opinion-groups.schemas.ts'

/** Representative questions shown per group, as Pol.is. */
const REPRESENTATIVE_LIMIT = 5
/** Questions listed as the most consensual and the most divisive. */
const TOP_QUESTIONS = 5
/** Squares per side of the map's grid. */
const MAP_SQUARES = 10

interface Column {
  question: ScopeQuestion
  choice: ScopeChoice | null
}

type Counts = { agree: number; disagree: number; seen: number }
const zero = (): Counts => ({ agree: 0, disagree: 0, seen: 0 })

/** The engine's columns in its order: a likert question, or one choice of a multiple-choice one. */
function columnsOf(questions: ScopeQuestion[], choices: ScopeChoice[]): Column[] {
  return questions.flatMap((question): Column[] =>
    question.subtype === 'mcq'
      ? choices.filter((c) => c.question_id === question.id).map((choice) => ({ question, choice }))
      : [{ question, choice: null }],
  )
}

/**
 * The model's answers as the engine's entries (a likert answer is one entry valued rating − 3, a pick one entry per
 * choice valued 1 for the choice made), with whether each entry's answer is private.
 */
export interface ModelEntries {
  input: OpinionInput
  private: Uint8Array
}

/** Counts per [shown group][column] over the people counted in each group, public and private answers apart. */
function cellCounts(columns: Column[], entries: ModelEntries, groupOf: Map<number, number>, groups: number) {
  const make = () => Array.from({ length: groups }, () => columns.map(zero))
  const open = make()
  const hidden = make()
  const { accountIds, answers } = entries.input
  const groupOfParticipant = Array.from(accountIds, (account) => groupOf.get(account) ?? -1)
  for (let e = 0; e < answers.participant.length; e++) {
    const g = groupOfParticipant[answers.participant[e]]
    const j = answers.column[e]
    // Past the questions: a Pol.is conversation's hidden statements, which the model counts and nothing publishes.
    if (g < 0 || j >= columns.length) continue
    const cell = (entries.private[e] ? hidden : open)[g][j]
    const value = answers.value[e]
    cell.seen++
    if (columns[j].choice === null) {
      if (value > 0) cell.agree++
      else if (value < 0) cell.disagree++
    } else if (value === 1) cell.agree++
    else cell.disagree++
  }
  return { open, hidden }
}

/** A grid side a little beyond the groups' centres, rounded to one significant digit: from aggregates, not from anyone's place. */
function mapExtent(groups: { x: number; y: number }[]): number {
  const far = Math.max(1, ...groups.flatMap((g) => [Math.abs(g.x), Math.abs(g.y)])) * 2
  const scale = 10 ** Math.floor(Math.log10(far))
  return Math.ceil(far / scale) * scale
}

/** People with a private answer in the scope: in a population, they count only once it holds k of them. */
export function privateAuthors(answers: ScopeAnswers): Set<number> {
  const authors = new Set<number>()
  for (let a = 0; a < answers.accountId.length; a++) if (answers.private[a]) authors.add(answers.accountId[a])
  return authors
}

/**
 * The groups as populations (the rule above): which are shown, and for each participant the index of the shown
 * group they are counted in, or −1.
 */
function countedGroups(result: OpinionGroupsResult, hasPrivate: Set<number>, k: number) {
  const { accountIds, group } = result.participants
  const at = new Map(result.groups.map((g, i) => [g.label, i]))
  const headcounts = result.groups.map(() => ({ public: 0, private: 0 }))
  accountIds.forEach((account, i) => {
    if (group[i] >= 0) headcounts[at.get(group[i])!][hasPrivate.has(account) ? 'private' : 'public']++
  })
  const releases = result.groups.map((_, g) => releaseGroup(headcounts[g], k))
  const shownGroups = result.groups.filter((_, g) => releases[g].published)
  const shownIndex = new Map(shownGroups.map((g, i) => [g.label, i]))
  const countedIn = accountIds.map((account, i) => {
    if (group[i] < 0) return -1
    const release = releases[at.get(group[i])!]
    if (!release.published || (hasPrivate.has(account) && !release.withPrivate)) return -1
    return shownIndex.get(group[i])!
  })
  return { shownGroups, countedIn }
}

/** The map's squares: how many counted people sit in each, by rule 1 and 2 against the number clustered. */
function mapSquares(result: OpinionGroupsResult, countedIn: number[], hasPrivate: Set<number>, extent: number, k: number) {
  const side = (2 * extent) / MAP_SQUARES
  const clamp = (v: number) => Math.min(MAP_SQUARES - 1, Math.max(0, Math.floor((v + extent) / side)))
  const squares = new Map<string, { public: number; private: number }>()
  const total = { public: 0, private: 0 }
  result.participants.accountIds.forEach((account, i) => {
    if (countedIn[i] < 0) return
    const key = `${clamp(result.participants.x[i])},${clamp(result.participants.y[i])}`
    const square = squares.get(key) ?? { public: 0, private: 0 }
    squares.set(key, square)
    const kind = hasPrivate.has(account) ? 'private' : 'public'
    square[kind]++
    total[kind]++
  })
  const keys = [...squares.keys()].sort()
  const releases = releaseSiblings(
    keys.map((key) => squares.get(key)!),
    k,
    { count: total, release: { published: true, withPrivate: true } },
  )
  return keys
    .flatMap((key, s) => {
      if (!releases[s].published) return []
      const [i, j] = key.split(',').map(Number)
      const square = squares.get(key)!
      return [{ x: -extent + i * side, y: -extent + j * side, count: square.public + (releases[s].withPrivate ? square.private : 0) }]
    })
    .sort((a, b) => a.x - b.x || a.y - b.y)
}

/** `hasPrivate`: the people with a private answer among the entries (privateAuthors). */
export function publishOpinionGroups(
  result: OpinionGroupsResult,
  questions: ScopeQuestion[],
  choices: ScopeChoice[],
  entries: ModelEntries,
  hasPrivate: Set<number>,
  k: number,
): { published: PublishedGroups; counted: { accountId: number; label: number }[]; countedPrivate: Set<number> } {
  const columns = columnsOf(questions, choices)
  const { shownGroups, countedIn } = countedGroups(result, hasPrivate, k)
  const { accountIds, x, y } = result.participants
  const groupOf = new Map<number, number>()
  const members = shownGroups.map(() => ({ size: 0, x: 0, y: 0 }))
  countedIn.forEach((g, i) => {
    if (g < 0) return
    groupOf.set(accountIds[i], g)
    members[g].size++
    members[g].x += x[i]
    members[g].y += y[i]
  })
  const centres = members.map((m) => ({ x: m.x / m.size + 0, y: m.y / m.size + 0 }))
  const { open, hidden } = cellCounts(columns, entries, groupOf, shownGroups.length)
  // null: the cell is withheld.
  const shown: (Counts | null)[][] = shownGroups.map((_, g) =>
    columns.map((_c, j) => {
      const release = releaseGroup({ public: open[g][j].seen, private: hidden[g][j].seen }, k)
      if (!release.published) return null
      const add = (key: keyof Counts) => open[g][j][key] + (release.withPrivate ? hidden[g][j][key] : 0)
      return { agree: add('agree'), disagree: add('disagree'), seen: add('seen') }
    }),
  )
  const total = (j: number, except: number): Counts =>
    shown.reduce((sum, cells, g) => {
      const cell = cells[j]
      if (g === except || !cell) return sum
      return { agree: sum.agree + cell.agree, disagree: sum.disagree + cell.disagree, seen: sum.seen + cell.seen }
    }, zero())

  const describe = (j: number) => ({
    question: columns[j].question.id,
    choice: columns[j].choice?.id ?? null,
    text: columns[j].choice ? `${columns[j].question.question}: ${columns[j].choice!.text}` : columns[j].question.question,
  })
  const everyGroupShown = (j: number) => shown.length >= 2 && shown.every((cells) => cells[j] !== null)
  const perColumn: PublishedColumn[] = columns.map((_c, j) => {
    const complete = everyGroupShown(j)
    return {
      ...describe(j),
      consensus: complete ? shown.reduce((product, cells) => product * agreeRate(cells[j]!.agree, cells[j]!.seen), 1) : null,
      divisiveness: complete
        ? Math.max(...shown.map((cells) => agreeRate(cells[j]!.agree, cells[j]!.seen))) -
          Math.min(...shown.map((cells) => agreeRate(cells[j]!.agree, cells[j]!.seen)))
        : null,
      groups: shownGroups.flatMap((group, g) => (shown[g][j] ? [{ label: group.label, ...shown[g][j]! }] : [])),
    }
  })
  const ranked = (key: 'consensus' | 'divisiveness') =>
    perColumn
      .filter((c) => c[key] !== null)
      .sort((a, b) => b[key]! - a[key]! || a.question - b.question || (a.choice ?? 0) - (b.choice ?? 0))
      .slice(0, TOP_QUESTIONS)
      .map((c) => ({ question: c.question, choice: c.choice, text: c.text, [key]: c[key]! }))

  const clustered = groupOf.size
  // Not clustered (too few answers): people with a private answer among them count once there are k of them.
  const unclustered = { public: 0, private: 0 }
  accountIds.forEach((account, i) => {
    if (result.participants.group[i] < 0) unclustered[hasPrivate.has(account) ? 'private' : 'public']++
  })
  const extent = mapExtent(centres)

  const published: PublishedGroups = {
    participants: clustered + unclustered.public + (unclustered.private >= k ? unclustered.private : 0),
    clustered,
    group_count: {
      k: shownGroups.length,
      found: result.groupCount.k,
      best: result.groupCount.best,
      criterion: result.rules.groups.criterion,
    },
    groups: shownGroups.map((group, g) => ({
      label: group.label,
      size: members[g].size,
      share: clustered > 0 ? members[g].size / clustered : 0,
      // Filled in by the service, which reads the people's ages and regions (opinion-groups.weighting.ts).
      weighted_share: null,
      x: centres[g].x,
      y: centres[g].y,
      representative: selectRepresentative(
        columns.map((_c, j) => columnRepness(shown[g][j] ?? zero(), total(j, g))),
        REPRESENTATIVE_LIMIT,
      )
        .filter((r) => shown[g][r.column] !== null)
        .map((r) => ({
          ...describe(r.column),
          repful_for: r.repfulFor,
          agree: shown[g][r.column]!.agree,
          disagree: shown[g][r.column]!.disagree,
          seen: shown[g][r.column]!.seen,
          p_success: r.pSuccess,
          p_test: r.pTest,
          repness: r.repness,
          repness_test: r.repnessTest,
        })),
    })),
    weighting: { people: 0, method: null },
    consensus: ranked('consensus') as PublishedGroups['consensus'],
    divisive: ranked('divisiveness') as PublishedGroups['divisive'],
    questions: perColumn,
    map: { extent, squares: MAP_SQUARES, cells: mapSquares(result, countedIn, hasPrivate, extent, k) },
  }
  const counted = [...groupOf].map(([accountId, g]) => ({ accountId, label: shownGroups[g].label }))
  // The people with a private answer that what is published counts: the service fits the model on no others'.
  const countedPrivate = new Set([...groupOf.keys()].filter((account) => hasPrivate.has(account)))
  if (unclustered.private >= k)
    accountIds.forEach((account, i) => {
      if (result.participants.group[i] < 0 && hasPrivate.has(account)) countedPrivate.add(account)
    })
  return { published, counted, countedPrivate }
}
