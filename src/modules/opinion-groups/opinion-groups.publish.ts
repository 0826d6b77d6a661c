/**
 * What of an opinion-groups result may be published (docs/opinion-groups.md, docs/privacy.md). Pure. The model is
 * fitted on every answer, private ones included; what leaves it goes through the disclosure rules:
 * - a group of fewer than MIN_CELL_SIZE people is not shown (its members are counted nowhere but in the totals);
 * - each (group, question or choice) is a cell of respondents: its private answers count only once it holds k of
 *   them, and it is shown only when what it counts reaches k (src/disclosure/release.ts);
 * - representative questions, consensus and divisiveness are computed from the shown cells only;
 * - the map shows how many people sit in each square of a fixed grid, a square of fewer than k not at all;
 * - nobody's own position is published: a caller learns only their own.
 */
import { releaseGroup } from '../../disclosure/release.ts'
import { agreeRate } from '../../engines/opinion-groups/consensus.ts'
import { columnRepness, selectRepresentative } from '../../engines/opinion-groups/repness.ts'
import type { OpinionGroupsResult } from '../../engines/opinion-groups/index.ts'
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

/** Counts per [group index][column], public and private apart. */
function cellCounts(result: OpinionGroupsResult, columns: Column[], answers: ScopeAnswers, groupIndex: Map<number, number>) {
  const groupOf = new Map<number, number>()
  result.participants.accountIds.forEach((account, i) => {
    const index = groupIndex.get(result.participants.group[i])
    if (index !== undefined) groupOf.set(account, index)
  })
  const firstColumn = new Map<number, number>()
  columns.forEach((c, j) => {
    if (!firstColumn.has(c.question.id)) firstColumn.set(c.question.id, j)
  })
  const make = () => Array.from(groupIndex, () => columns.map(zero))
  const open = make()
  const hidden = make()
  for (let a = 0; a < answers.accountId.length; a++) {
    const g = groupOf.get(answers.accountId[a])
    const first = firstColumn.get(answers.questionId[a])
    if (g === undefined || first === undefined) continue
    const cells = (answers.private[a] ? hidden : open)[g]
    if (columns[first].choice === null) {
      const cell = cells[first]
      cell.seen++
      if (answers.value[a] > 3) cell.agree++
      else if (answers.value[a] < 3) cell.disagree++
      continue
    }
    for (let j = first; j < columns.length && columns[j].question.id === answers.questionId[a]; j++) {
      cells[j].seen++
      if (columns[j].choice!.id === answers.value[a]) cells[j].agree++
      else cells[j].disagree++
    }
  }
  return { open, hidden }
}

/** A grid side a little beyond the groups' centres, rounded to one significant digit: from aggregates, not from anyone's place. */
function mapExtent(groups: { x: number; y: number }[]): number {
  const far = Math.max(1, ...groups.flatMap((g) => [Math.abs(g.x), Math.abs(g.y)])) * 2
  const scale = 10 ** Math.floor(Math.log10(far))
  return Math.ceil(far / scale) * scale
}

export function publishOpinionGroups(
  result: OpinionGroupsResult,
  questions: ScopeQuestion[],
  choices: ScopeChoice[],
  answers: ScopeAnswers,
  k: number,
): PublishedGroups {
  const columns = columnsOf(questions, choices)
  const shownGroups = result.groups.filter((g) => g.size >= k)
  const groupIndex = new Map(shownGroups.map((g, i) => [g.label, i]))
  const { open, hidden } = cellCounts(result, columns, answers, groupIndex)
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

  const clustered = result.participants.group.filter((g) => g >= 0).length
  const extent = mapExtent(shownGroups)
  const side = (2 * extent) / MAP_SQUARES
  const squares = new Map<string, number>()
  result.participants.group.forEach((g, i) => {
    if (g < 0) return
    const clamp = (v: number) => Math.min(MAP_SQUARES - 1, Math.max(0, Math.floor((v + extent) / side)))
    const key = `${clamp(result.participants.x[i])},${clamp(result.participants.y[i])}`
    squares.set(key, (squares.get(key) ?? 0) + 1)
  })

  return {
    participants: result.participants.accountIds.length,
    clustered,
    group_count: {
      k: shownGroups.length,
      found: result.groupCount.k,
      best: result.groupCount.best,
      criterion: result.rules.groups.criterion,
    },
    groups: shownGroups.map((group, g) => ({
      label: group.label,
      size: group.size,
      share: clustered > 0 ? group.size / clustered : 0,
      // Filled in by the service, which reads the people's ages and regions (opinion-groups.weighting.ts).
      weighted_share: null,
      x: group.x,
      y: group.y,
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
    map: {
      extent,
      squares: MAP_SQUARES,
      cells: [...squares]
        .filter(([, count]) => count >= k)
        .map(([key, count]) => {
          const [i, j] = key.split(',').map(Number)
          return { x: -extent + i * side, y: -extent + j * side, count }
        })
        .sort((a, b) => a.x - b.x || a.y - b.y),
    },
  }
}
