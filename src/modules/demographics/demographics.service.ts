import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, ValidationFailed, type FieldErrors } from '../../core/errors.ts'
import { canSee } from '../../access/question-access.ts'
import { emptyFamily, familyColumns, type FamilyTally } from '../../engines/statistics/tally.ts'
import { publishedCells, shownCount, WITHHELD, type Headcount, type Release } from '../../disclosure/release.ts'
import { AGE_BANDS, ageBandIndex, ageGroupOf } from './age-bands.ts'
import { addTo, noOne, questionScope, releaseNested, type Node, type QuestionScope } from './disclosure.ts'
import {
  demographicsRepository,
  type AnsweredQuestion,
  type AnswerCellRow,
  type AnswerFilters,
  type AreaCellRow,
  type QuestionLookup,
} from './demographics.repository.ts'
import type { AreaResult, QuestionGeographics } from './demographics.schemas.ts'

const INVALID_CHOICE = 'Select a valid choice. That choice is not one of the available choices.'

/** One cell of question_demographics, with the choice id the CSV export also shows. */
export interface AnswerCell {
  band: number
  gender: number
  value: number | null
  choiceId: number | null
  choiceText: string | null
  count: number
}

export interface AnswerBreakdown {
  totalVotes: number
  /** The published cells only. */
  cells: AnswerCell[]
}

/** Nulls last; numbers ascending. */
const byNullable = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a - b)

/** The question a breakdown is about: 404 when there is none or the caller may not see it. */
export async function questionFor(db: Kysely<Database>, caller: Caller | null, id: number): Promise<QuestionLookup> {
  const question = await demographicsRepository(db).question(id)
  if (!question || !canSee(caller, question)) throw NotFound()
  return question
}

/** 400 naming each filter whose group or area does not exist. */
export async function checkFilterTargets(db: Kysely<Database>, filters: AnswerFilters, names: { group?: string; geo?: string }) {
  if (filters.group === undefined && filters.geo === undefined) return
  const found = await demographicsRepository(db).filterTargets(filters)
  const errors: FieldErrors = {}
  if (filters.group !== undefined && !found.group && names.group) errors[names.group] = [INVALID_CHOICE]
  if (filters.geo !== undefined && !found.geo && names.geo) errors[names.geo] = [INVALID_CHOICE]
  if (Object.keys(errors).length > 0) throw ValidationFailed(errors)
}

/** The release tree of a question's answers: the question, its 9 age bands, (band, gender), (band, gender, choice, value). */
export interface BandTree {
  scope: QuestionScope
  root: Node<string>
  releases: Map<string, Release>
}

export const bandKey = (band: number) => `b${band}`
const classKey = (band: number, gender: number) => `b${band}g${gender}`
const leafKey = (band: number, gender: number, choice: number | null, value: number | null) => `b${band}g${gender}c${choice}v${value}`

/** Child `key` of `parent`, made on first use. */
function child(parent: Node<string>, key: string, index: Map<string, Node<string>>): Node<string> {
  let node = index.get(key)
  if (!node) {
    node = { key, count: noOne(), children: [] }
    index.set(key, node)
    parent.children.push(node)
  }
  return node
}

/**
 * The tree every age breakdown releases (question_demographics and the weighted results by age), from groups of
 * answers. Unknown ages are in the question's headcount and in no band: they fall in its complement.
 */
export function bandTree(
  groups: Pick<AnswerCellRow, 'band' | 'gender' | 'region' | 'private' | 'choice_id' | 'value' | 'count'>[],
  k: number,
): BandTree {
  const sorted = [...groups].sort(
    (a, b) => byNullable(a.band, b.band) || a.gender - b.gender || byNullable(a.choice_id, b.choice_id) || byNullable(a.value, b.value),
  )
  const scope = questionScope(sorted, k)
  const root: Node<string> = { key: 'q', count: scope.root, children: [] }
  const index = new Map<string, Node<string>>()
  for (const group of sorted) {
    if (group.band === null || !scope.counts(group)) continue
    const n = Number(group.count)
    const band = child(root, bandKey(group.band), index)
    const gender = child(band, classKey(group.band, group.gender), index)
    const leaf = child(gender, leafKey(group.band, group.gender, group.choice_id, group.value), index)
    for (const node of [band, gender, leaf]) addTo(node.count, group.private, n)
  }
  return { scope, root, releases: releaseNested(root, k, true) }
}

/** A group's figure as released: its public answers, and its private ones when they count. */
export const shown = (releases: Map<string, Release>, key: string, count: Headcount) => shownCount(count, releases.get(key) ?? WITHHELD)

/** Answers per (age band at answering, gender, value, choice), as released: published cells only. */
export async function answerBreakdown(
  db: Kysely<Database>,
  question: AnsweredQuestion,
  filters: AnswerFilters,
  k: number,
): Promise<AnswerBreakdown> {
  const rows = await demographicsRepository(db).answerCells(question, filters)
  const tree = bandTree(rows, k)
  const texts = new Map(rows.map((row) => [row.choice_id, row.choice_text]))
  const cells: AnswerCell[] = []
  for (const band of tree.root.children)
    for (const gender of band.children)
      for (const leaf of gender.children) {
        const release = tree.releases.get(leaf.key)!
        if (!release.published) continue
        const [, b, g, c, v] = /^b(\d+)g(\d+)c(null|\d+)v(null|\d+)$/.exec(leaf.key)!
        const choiceId = c === 'null' ? null : Number(c)
        cells.push({
          band: Number(b),
          gender: Number(g),
          value: v === 'null' ? null : Number(v),
          choiceId,
          choiceText: texts.get(choiceId) ?? null,
          count: shownCount(leaf.count, release),
        })
      }
  return { totalVotes: shownCount(tree.scope.root, tree.scope.rootRelease), cells }
}

export const bandLabel = (band: number | null) => (band === null ? null : AGE_BANDS[band].label)

/**
 * People per (age group today, gender), as the web app's age chart reads them. Cells of fewer than k people are
 * left out, and more while those left out hold 1 to k-1 people (their sum is published as user_count).
 */
export async function peopleBreakdown(db: Kysely<Database>, geo: number | undefined, k: number) {
  const rows = await demographicsRepository(db).peopleCells(geo)
  const cells = new Map<string, { age_group: number | null; gender: number; id__count: number }>()
  for (const row of rows) {
    // An age the bands call impossible (a date of birth in the future, past 130) is unknown here too.
    const age = row.age === null ? null : Number(row.age)
    const ageGroup = age === null || ageBandIndex(age) === null ? null : ageGroupOf(age)
    const key = JSON.stringify([ageGroup, row.gender])
    const cell = cells.get(key)
    if (cell) cell.id__count += Number(row.count)
    else cells.set(key, { age_group: ageGroup, gender: row.gender, id__count: Number(row.count) })
  }
  const sorted = [...cells.values()].sort((a, b) => byNullable(a.age_group, b.age_group) || a.gender - b.gender)
  const total = sorted.reduce((sum, cell) => sum + cell.id__count, 0)
  const published = publishedCells(
    sorted.map((cell) => cell.id__count),
    k,
    total,
  )
  return sorted.filter((_, i) => published[i])
}

function add(family: FamilyTally, value: number | null, count: number) {
  if (value === null) family.skipped += count
  else if (Number.isInteger(value) && value >= 1 && value <= 5) family.counts[value - 1] += count
}

interface AreaTally {
  row: AreaCellRow
  count: number
  skipped: number
  direct: FamilyTally
  choices: Map<number, { count: number; direct: FamilyTally }>
}

/** A published area's figures, with the (choice, value) groups they are made of (the CSV export's rows). */
export interface ReleasedArea {
  area: AreaResult['area']
  coordinates: [number, number]
  /** Counts per (choice, value) as released. */
  cells: { choiceId: number | null; choiceText: string | null; value: number | null; count: number }[]
}

/**
 * The area tree a question's map releases: the question, its top-level areas, each area's children by parent (an
 * area whose parent holds none of the answers hangs from the question). Headcounts per area; the answers' rows.
 */
export async function areaReleases(db: Kysely<Database>, question: AnsweredQuestion, k: number) {
  return areaReleasesOf(await demographicsRepository(db).areaCells(question), k)
}

/** areaReleases of several rating questions, read in one statement. */
export async function ratingAreaReleases(db: Kysely<Database>, questionIds: number[], k: number) {
  const cells = await demographicsRepository(db).areaCellsOf(false, questionIds)
  return new Map([...cells].map(([id, rows]) => [id, areaReleasesOf(rows, k)]))
}

function areaReleasesOf(rows: AreaCellRow[], k: number) {
  const scope = questionScope(
    rows.filter((row) => row.area_id === null),
    k,
  )
  const nodes = new Map<number, Node<number> & { row: AreaCellRow }>()
  for (const row of rows) {
    if (row.area_id === null || !scope.counts(row)) continue
    let node = nodes.get(row.area_id)
    if (!node) nodes.set(row.area_id, (node = { key: row.area_id, count: noOne(), children: [], row }))
    addTo(node.count, row.private, Number(row.count))
  }
  const root: Node<number> = { key: 0, count: scope.root, children: [] }
  for (const node of nodes.values()) {
    const parent = node.row.parent_id === null ? undefined : nodes.get(node.row.parent_id)
    ;(parent && parent !== node ? parent : root).children.push(node)
  }
  const releases = releaseNested(root, k, true)
  releases.delete(0)
  return { rows, scope, releases }
}

/** Answers per area, as released: the published areas with their figures, and each one's (choice, value) counts. */
export async function areaBreakdown(
  db: Kysely<Database>,
  question: QuestionLookup,
  k: number,
): Promise<{ areas: ReleasedArea[]; geographics: QuestionGeographics }> {
  const mcq = question.subtype === 'mcq'
  const [{ rows, scope, releases }, choices] = await Promise.all([
    areaReleases(db, question, k),
    mcq ? demographicsRepository(db).choices(question.id) : [],
  ])
  const texts = new Map<number | null, string>(choices.map((choice) => [choice.id, choice.text]))
  const areas = new Map<number, AreaTally & { cells: Map<string, ReleasedArea['cells'][number]> }>()
  for (const row of rows) {
    if (row.area_id === null || !scope.counts(row)) continue
    const release = releases.get(row.area_id) ?? WITHHELD
    if (!release.published || (row.private && !release.withPrivate)) continue
    let area = areas.get(row.area_id)
    if (!area) {
      area = {
        row,
        count: 0,
        skipped: 0,
        direct: emptyFamily(),
        choices: new Map(choices.map((choice) => [choice.id, { count: 0, direct: emptyFamily() }])),
        cells: new Map(),
      }
      areas.set(row.area_id, area)
    }
    const count = Number(row.count)
    area.count += count
    if (row.value === null) area.skipped += count
    const cellKey = `${row.choice_id}:${row.value}`
    const cell = area.cells.get(cellKey)
    if (cell) cell.count += count
    else area.cells.set(cellKey, { choiceId: row.choice_id, choiceText: texts.get(row.choice_id) ?? null, value: row.value, count })
    if (row.choice_id === null) add(area.direct, row.value, count)
    else {
      // A choice vote counts for its choice, as the choices' own figures do (the question's direct figures are its likert answers').
      const choice = area.choices.get(row.choice_id)
      if (choice) {
        choice.count += count
        add(choice.direct, row.value, count)
      }
    }
  }
  const published = [...areas.values()].sort((a, b) => a.row.area_id! - b.row.area_id!)
  const results: AreaResult[] = published.map(({ row, count, skipped, direct, choices: perChoice }) => {
    return {
      area: areaSummary(row),
      count,
      skipped,
      ...familyColumns('direct', direct),
      choices: mcq
        ? choices.map((choice) => {
            const tally = perChoice.get(choice.id)!
            return { id: choice.id, text: choice.text, count: tally.count, ...familyColumns('direct', tally.direct) }
          })
        : null,
    } as AreaResult
  })
  const released = published.map(({ row, cells }) => ({
    area: areaSummary(row),
    coordinates: [Number(row.longitude), Number(row.latitude)] as [number, number],
    cells: [...cells.values()].sort((a, b) => byNullable(a.choiceId, b.choiceId) || byNullable(a.value, b.value)),
  }))
  return { areas: released, geographics: { question: question.id, subtype: question.subtype, results } }
}

const areaSummary = (row: AreaCellRow): AreaResult['area'] => ({
  id: row.area_id!,
  name: row.name!,
  code: row.code!,
  m_type: row.m_type!,
  parent: row.parent_id,
})
