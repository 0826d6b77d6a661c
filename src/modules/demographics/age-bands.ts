/**
 * Ages and age bands, one definition for the breakdowns, the census weighting and the exports.
 *
 * A respondent's age is taken when they answered (the answer's `created_at` against their date of birth): an
 * answer given at 24 stays an answer of a 24-year-old, so results do not drift as the panel ages, and the
 * census the answers are weighted to describes the population of that time. Ages of people without answers
 * (the users' age profile) are taken today.
 */

/** The bands of `question_demographics` (the web app's labels), lower bounds inclusive; the last is open. */
export const AGE_BANDS = [
  { label: '<15', from: 0, to: 14 },
  { label: '15-25', from: 15, to: 24 },
  { label: '25-35', from: 25, to: 34 },
  { label: '35-45', from: 35, to: 44 },
  { label: '45-55', from: 45, to: 54 },
  { label: '55-65', from: 55, to: 64 },
  { label: '65-75', from: 65, to: 74 },
  { label: '75-85', from: 75, to: 84 },
  { label: '85+', from: 85, to: Infinity },
] as const

export type AgeBandLabel = (typeof AGE_BANDS)[number]['label']

/** The index in AGE_BANDS of an age in whole years; null for an unknown or impossible age. */
export function ageBandIndex(age: number | null): number | null {
  if (age === null || !Number.isInteger(age) || age < 0 || age > 130) return null
  return AGE_BANDS.findIndex((band) => age >= band.from && age <= band.to)
}

/**
 * Whole years from a date of birth to a moment, as a birthday counts them (`dob` and `at` are column expressions;
 * `at` a UTC timestamp). The one definition of an age: breakdowns and weighting compute it where the rows are.
 * A date of birth after the moment, by any amount, is an unknown age (null): `age()` of a date less than a year
 * ahead has a zero year part, which would otherwise read as a newborn.
 */
export const AGE_SQL = (dob: string, at: string) =>
  `(CASE WHEN ${dob} <= (${at})::date THEN date_part('year', age((${at})::date, ${dob}))::int END)`

/** The AGE_BANDS index of an age column expression, as ageBandIndex gives it (null for unknown or past 130). */
export const AGE_BAND_SQL = (age: string) =>
  `(CASE WHEN ${age} IS NULL OR ${age} < 0 OR ${age} > 130 THEN NULL ${AGE_BANDS.map((band, i) => [band, i] as const)
    .reverse()
    .map(([band, i]) => `WHEN ${age} >= ${band.from} THEN ${i}`)
    .join(' ')} END)`

/**
 * The web app's age groups of `/api/users/demographics/` (AgeProfileBarchart reads `10 - age_group` as the
 * index of "0-10", "11-20", ... "81-90", ">90"): 10 for ages 0 to 10, 9 for 11 to 20, ..., 2 for 81 to 90,
 * 1 for 91 to 100; 0 past 100, which the chart leaves out.
 */
export function ageGroupOf(age: number): number {
  if (age <= 10) return 10
  if (age > 100) return 0
  return 10 - Math.floor((age - 1) / 10)
}

/** Census records count people by single year of age 0 to 90 (90 meaning 90 and over): the population of each band. */
export function bandPopulations(ages: readonly number[]): number[] {
  return AGE_BANDS.map((band) => {
    let total = 0
    for (let age = band.from; age <= Math.min(band.to, ages.length - 1); age++) total += Number(ages[age] ?? 0)
    return total
  })
}
