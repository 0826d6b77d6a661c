import type { SeparatingRow } from './politicians.match.repository.ts'
import type { PoliticianMatch } from './politicians.match.ts'
import { toPolitician, type LinkedPoliticianRow, type PoliticianRow } from './politicians.repository.ts'
import type { PoliticianListItem, SeparatingQuestion, SimplePolitician } from './politicians.schemas.ts'

/** The light form; area_id as text, as in the full form (spec 2.4 gives no type, so string). */
export function toSimplePolitician(row: LinkedPoliticianRow): SimplePolitician {
  return {
    id: row.id,
    name: row.name,
    sort_name: row.sort_name,
    group: row.party,
    area_id: row.area_id === null ? '' : String(row.area_id),
    area: row.area_name,
    image: row.image,
    type: row.type,
    user: row.user_id === null ? null : Number(row.user_id),
  }
}

export function toSeparatingQuestion(row: SeparatingRow): SeparatingQuestion {
  return {
    question: row.question_id,
    text: row.text,
    subtype: row.subtype,
    distance: row.distance,
    user: { value: row.a_value, choice: row.a_choice, choice_text: row.a_choice_text },
    politician: { value: row.b_value, choice: row.b_choice, choice_text: row.b_choice_text },
  }
}

/** A politician of a match: spec 2.4 and how far the person is from it. */
export function toMatchedPolitician(row: PoliticianRow, match: PoliticianMatch, separating: readonly SeparatingRow[]): PoliticianListItem {
  return {
    ...toPolitician(row),
    user: match.user_id,
    difference_percent: match.difference_percent,
    questions_counted: match.questions_counted,
    difference_distances: [...match.distances],
    most_different: separating.map(toSeparatingQuestion),
  }
}
