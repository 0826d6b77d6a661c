import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Url } from '../../http/schemas.ts'

export const CENSUS_AGES = 91

const ageFields = Object.fromEntries(
  Array.from({ length: CENSUS_AGES }, (_, age) => [
    `age_${age}`,
    Type.Integer({ description: age === 90 ? 'people aged 90 and over' : `people aged ${age}` }),
  ]),
)

/** Spec 2.11: population of an area by single year of age. */
export const CensusRecord = Type.Object({
  url: Url,
  date: Nullable(Type.String({ format: 'date' })),
  code: Type.String({ description: 'area code' }),
  name: Type.String(),
  all_ages: Type.Integer(),
  ...ageFields,
  geo: Nullable(Type.Integer()),
})
export type CensusRecord = Static<typeof CensusRecord>

export const CensusListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  geo: Type.Optional(IdFilter),
  code: Type.Optional(Type.String({ maxLength: 50 })),
})
export type CensusListQuery = Static<typeof CensusListQuery>
