import { Type, type Static } from 'typebox'
import { Nullable } from '../../http/schemas.ts'

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
