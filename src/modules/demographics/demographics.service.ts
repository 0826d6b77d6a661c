import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../http/authentication.ts'
import { NotFound, ValidationFailed, type FieldErrors } from '../../http/errors.ts'
import { canSee } from '../questions/question-access.ts'
import { emptyFamily, familyColumns, type FamilyTally } from '../statistics/compute/tally.ts'
import { AGE_BANDS, ageBandIndex, ageGroupOf } from './age-bands.ts'
import {
  demographicsRepository,
  type AnsweredQuestion,
  type AnswerFilters,
  type AreaCellRow,
  type QuestionLookup,
} from './demographics.repository.ts'
import type { AreaResult, QuestionGeographics } from './demographics.schemas.ts'

const INVALID_CHOICE = 'Select a valid choice. That choice is not one of the available choices.'

/** One cell of question_demographics, with the choice id the CSV export also shows. */
export interface AnswerCell {
  band: number | null
  gender: number
  value: number | null
  choiceId: number | null
  choiceText: string | null
  count: number
}

export interface AnswerBreakdown {
  totalVotes: number
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

/** Answers per (age band at answering, gender, value, choice): SQL groups by single year, the bands are folded here. */
export async function answerBreakdown(db: Kysely<Database>, question: AnsweredQuestion, filters: AnswerFilters): Promise<AnswerBreakdown> {
  const rows = await demographicsRepository(db).answerCells(question, filters)
  const cells = new Map<string, AnswerCell>()
  let totalVotes = 0
  for (const row of rows) {
    const band = ageBandIndex(row.age === null ? null : Number(row.age))
    const key = JSON.stringify([band, row.gender, row.value, row.choice_id])
    const cell = cells.get(key)
    const count = Number(row.count)
    totalVotes += count
    if (cell) cell.count += count
    else cells.set(key, { band, gender: row.gender, value: row.value, choiceId: row.choice_id, choiceText: row.choice_text, count })
  }
  const sorted = [...cells.values()].sort(
    (a, b) => byNullable(a.band, b.band) || a.gender - b.gender || byNullable(a.choiceId, b.choiceId) || byNullable(a.value, b.value),
  )
  return { totalVotes, cells: sorted }
}

export const bandLabel = (band: number | null) => (band === null ? null : AGE_BANDS[band].label)

/** People per (age group today, gender), as the web app's age chart reads them. */
export async function peopleBreakdown(db: Kysely<Database>, geo: number | undefined) {
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
  return [...cells.values()].sort((a, b) => byNullable(a.age_group, b.age_group) || a.gender - b.gender)
}

function add(family: FamilyTally, value: number | null, count: number) {
  if (value === null) family.skipped += count
  else if (Number.isInteger(value) && value >= 1 && value <= 5) family.counts[value - 1] += count
}

/** Answers per area: the raw (area, choice, value) cells and the figures of each area and choice. */
export async function areaBreakdown(
  db: Kysely<Database>,
  question: QuestionLookup,
): Promise<{ cells: AreaCellRow[]; geographics: QuestionGeographics; coordinates: Map<number, [number, number]> }> {
  const repository = demographicsRepository(db)
  const mcq = question.subtype === 'mcq'
  const [cells, choices] = await Promise.all([repository.areaCells(question), mcq ? repository.choices(question.id) : []])
  type AreaTally = {
    row: AreaCellRow
    count: number
    skipped: number
    direct: FamilyTally
    choices: Map<number, { count: number; direct: FamilyTally }>
  }
  const areas = new Map<number, AreaTally>()
  for (const row of cells) {
    let area = areas.get(row.area_id)
    if (!area) {
      area = {
        row,
        count: 0,
        skipped: 0,
        direct: emptyFamily(),
        choices: new Map(choices.map((choice) => [choice.id, { count: 0, direct: emptyFamily() }])),
      }
      areas.set(row.area_id, area)
    }
    const count = Number(row.count)
    area.count += count
    if (row.value === null) area.skipped += count
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
  const coordinates = new Map<number, [number, number]>()
  const results: AreaResult[] = [...areas.values()].map(({ row, count, skipped, direct, choices: perChoice }) => {
    coordinates.set(row.area_id, [Number(row.longitude), Number(row.latitude)])
    return {
      area: { id: row.area_id, name: row.name, code: row.code, m_type: row.m_type, parent: row.parent_id },
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
  return { cells, geographics: { question: question.id, subtype: question.subtype, results }, coordinates }
}
