import { Type, type Static } from 'typebox'
import { INT4_MAX } from '../../core/integers.ts'
import { IdList, ListQuery, Nullable } from '../../http/schemas.ts'
import { ComparedQuestion, Distances } from '../compare/compare.schemas.ts'

/** Spec 2.4. Social fields carry the spec's neutral provider names. */
export const Politician = Type.Object({
  id: Type.Integer(),
  ID: Nullable(Type.String()),
  name: Type.String(),
  sort_name: Type.String(),
  email: Type.String(),
  social3: Type.String(),
  social1: Type.String(),
  group: Type.String({ description: 'party' }),
  group_id: Type.String(),
  area_id: Type.String(),
  area: Type.String(),
  chamber: Type.String(),
  term: Type.String(),
  start_date: Type.String(),
  end_date: Nullable(Type.String()),
  image: Nullable(Type.String()),
  gender: Type.String(),
  country: Type.String(),
  type: Type.String(),
  social4: Type.String(),
  social1_page: Type.String(),
  fundraising_page: Type.String(),
  cv: Nullable(Type.String()),
  statement: Type.String(),
})
export type Politician = Static<typeof Politician>

/** The light form of simple_politicians and simple_politicians_geos, with the account linked to the politician. */
export const SimplePolitician = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  sort_name: Type.String(),
  group: Type.String({ description: 'party' }),
  area_id: Type.String({ description: 'the id of the area the politician stands for, as text; empty without one' }),
  area: Type.String({ description: "the area's name" }),
  image: Nullable(Type.String()),
  type: Type.String(),
  user: Nullable(Type.Integer({ description: 'the id of the user account linked to this politician; null without one' })),
})
export type SimplePolitician = Static<typeof SimplePolitician>

/** How many of the questions that separate a person from a politician most each match shows. */
export const MATCH_SEPARATING_QUESTIONS = 3

/** One question that separates the matched person (user) from the politician (politician): both answers. */
export const SeparatingQuestion = Type.Object({
  question: Type.Integer({ description: 'question id' }),
  text: Type.String({ description: "the question's text" }),
  subtype: Type.String(),
  distance: Type.Integer({ minimum: 2, maximum: 4 }),
  user: ComparedQuestion.properties.usera,
  politician: ComparedQuestion.properties.userb,
})
export type SeparatingQuestion = Static<typeof SeparatingQuestion>

/** What `?match=<user id>` adds to each politician of the listing. */
const MatchFields = {
  user: Type.Optional(
    Nullable(Type.Integer({ description: 'with match: the user account linked to the politician, whose answers count' })),
  ),
  difference_percent: Type.Optional(
    Nullable(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description: 'with match: 100·Σ(i·d_i)/(4·Σd_i), 0 same answers, 100 opposite; null below 5 common questions',
      }),
    ),
  ),
  questions_counted: Type.Optional(Type.Integer({ minimum: 0, description: 'with match: the questions both answered' })),
  difference_distances: Type.Optional(Distances),
  most_different: Type.Optional(
    Type.Array(SeparatingQuestion, {
      description: `with match: up to ${MATCH_SEPARATING_QUESTIONS} common questions at distance 2 or more, largest first, then lowest id`,
    }),
  ),
}

/** An item of the politician listing: spec 2.4, and the match figures when `match` is given. */
export const PoliticianListItem = Type.Object({ ...Politician.properties, ...MatchFields })
export type PoliticianListItem = Static<typeof PoliticianListItem>

/** An id given as a filter (any value a row id can take). */
const id = (description: string) => Type.Integer({ minimum: 0, maximum: INT4_MAX, description })
const text = (description: string) => Type.Optional(Type.String({ maxLength: 200, description }))

/** The filters every politician listing takes. */
const PoliticianFilters = {
  search: text('words of the name: each word must appear in name or sort_name'),
  area: Type.Optional(id('the id of the area the politicians stand for (an unknown area is a 400)')),
  area__in: Type.Optional(IdList('comma-separated area ids; every one must exist')),
  party: text('the party, exactly'),
  group: text('the party, exactly (the field name of spec 2.4)'),
  party_id: text("the party's id, exactly"),
  group_id: text("the party's id, exactly (the field name of spec 2.4)"),
  type: text('the kind of politician, exactly (e.g. candidate)'),
}

export const PoliticianListQuery = ListQuery({
  ...PoliticianFilters,
  match: Type.Optional(id("a user id: only the politicians of that user's areas and the areas above, most agreement first")),
})
export type PoliticianListQuery = Static<typeof PoliticianListQuery>

export const SimplePoliticianListQuery = ListQuery(PoliticianFilters)
export type SimplePoliticianListQuery = Static<typeof SimplePoliticianListQuery>

export const PoliticiansOfAreaQuery = ListQuery({
  ...PoliticianFilters,
  geo: id('an area id: the politicians of that area and of every area above it'),
})
export type PoliticiansOfAreaQuery = Static<typeof PoliticiansOfAreaQuery>
