import { Type, type Static } from 'typebox'
import { INT4_MAX } from '../../core/integers.ts'
import { Nullable, Timestamp } from '../../http/schemas.ts'

/** Answers of /api/opinion_groups/ (docs/opinion-groups.md). */

/** The most groups `?groups=` asks for. */
export const MAX_CHOSEN_GROUPS = 20

const ScopeId = (what: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: INT4_MAX, description: `the ${what}'s id` }))

export const OpinionGroupsQuery = Type.Object({
  collection: ScopeId('collection'),
  tag: ScopeId('tag'),
  group: ScopeId('group'),
  groups: Type.Optional(
    Type.Integer({
      minimum: 2,
      maximum: MAX_CHOSEN_GROUPS,
      description:
        'staff only: the groups at this k (fewer when the answers cannot give them), computed now and not kept, for comparison and research',
    }),
  ),
  format: Type.Optional(
    Type.Union(
      ['json', 'api', 'csv', 'svg'].map((name) => Type.Literal(name)),
      {
        description:
          '`csv` for the open-data table (one row per group and question or choice), `svg` for the opinion map as a picture; JSON by default',
      },
    ),
  ),
})
export type OpinionGroupsQuery = Static<typeof OpinionGroupsQuery>

const Counts = {
  agree: Type.Integer({ description: 'members rating it 4 or 5 (a choice: choosing it)' }),
  disagree: Type.Integer({ description: 'members rating it 1 or 2 (a choice: choosing another)' }),
  seen: Type.Integer({ description: 'members answering it at all (a rating of 3 is seen, neither)' }),
}
const Item = {
  question: Type.Integer(),
  choice: Nullable(Type.Integer({ description: 'the choice, for a multiple-choice question (one column per choice)' })),
  text: Type.String(),
}

export const Representative = Type.Object({
  ...Item,
  repful_for: Type.String({ description: 'agree or disagree: how the group stands out on it' }),
  ...Counts,
  p_success: Type.Number({ description: '(agree or disagree + 1) / (seen + 2) in the group' }),
  p_test: Type.Number({ description: 'one-proportion test of p_success against ½' }),
  repness: Type.Number({ description: 'p_success over the same rate among the other groups' }),
  repness_test: Type.Number({ description: 'two-proportion test of the group against the other groups' }),
})

export const PublishedGroup = Type.Object({
  label: Type.Integer({ description: 'kept from one recompute to the next while the group is the same people' }),
  size: Type.Integer({ description: 'people the group counts: those with a private answer once it holds MIN_CELL_SIZE of them' }),
  share: Type.Number({ description: 'of the people grouped, 0..1' }),
  weighted_share: Nullable(
    Type.Number({ description: 'of the adults the grouped people stand for, weighted to the census by age band × region, 0..1' }),
  ),
  x: Type.Number({ description: "the mean of its members' places on the map" }),
  y: Type.Number(),
  representative: Type.Array(Representative),
})

export const PublishedColumn = Type.Object({
  ...Item,
  consensus: Nullable(
    Type.Number({ description: 'group-informed consensus: ∏ over groups of (agree + 1) / (seen + 2); null when a group is withheld' }),
  ),
  divisiveness: Nullable(Type.Number({ description: 'largest minus smallest group agree rate (agree + 1) / (seen + 2)' })),
  groups: Type.Array(Type.Object({ label: Type.Integer(), ...Counts }), {
    description: 'the shown cells; one under MIN_CELL_SIZE is left out',
  }),
})
export type PublishedColumn = Static<typeof PublishedColumn>

const Ranked = (key: 'consensus' | 'divisiveness') => Type.Array(Type.Object({ ...Item, [key]: Type.Number() }))

export const PublishedGroups = Type.Object({
  participants: Type.Integer({
    description: 'people with at least one answer to the questions, as the groups count them (docs/opinion-groups.md)',
  }),
  clustered: Type.Integer({ description: 'people in the shown groups: the sum of their sizes' }),
  group_count: Type.Object({
    k: Type.Integer({ description: 'groups shown' }),
    found: Type.Integer({ description: 'groups found (a group of fewer than MIN_CELL_SIZE is not shown)' }),
    best: Nullable(Type.Integer({ description: 'the best number of groups by the criterion in this recompute' })),
    criterion: Type.String(),
  }),
  groups: Type.Array(PublishedGroup),
  map_rules: Type.Optional(
    Type.String({
      description:
        "how the map was drawn: the service's rules, or for a collection imported from Pol.is, its code's (docs/opinion-groups.md)",
    }),
  ),
  weighting: Type.Object({
    people: Type.Integer({ description: 'grouped people of known age and region the weights cover' }),
    method: Nullable(Type.String({ description: 'post-stratified or raked (docs/statistics.md); null with nobody to weight' })),
  }),
  consensus: Ranked('consensus'),
  divisive: Ranked('divisiveness'),
  questions: Type.Array(PublishedColumn),
  map: Type.Object({
    extent: Type.Number({ description: 'the grid spans −extent..extent on both axes' }),
    squares: Type.Integer({ description: 'squares per side' }),
    cells: Type.Array(Type.Object({ x: Type.Number(), y: Type.Number(), count: Type.Integer() }), {
      description: 'the lower-left corner of each square holding at least MIN_CELL_SIZE people, and how many',
    }),
  }),
})
export type PublishedGroups = Static<typeof PublishedGroups>

export const MyPlace = Type.Object({
  group: Nullable(Type.Integer({ description: 'your group; null while it is not shown' })),
  clustered: Type.Boolean({ description: 'false: too few answers to be grouped; group is then the nearest' }),
  x: Type.Number(),
  y: Type.Number(),
})

export const OpinionGroups = Type.Object({
  scope: Type.String({ description: 'collection, tag or group' }),
  scope_id: Type.Integer(),
  computed_at: Timestamp,
  answers_counted: Type.Integer({ description: 'answers the groups were computed from' }),
  ...PublishedGroups.properties,
  /** The caller's own place; null for anyone else or without answers. */
  me: Nullable(MyPlace),
})
export type OpinionGroups = Static<typeof OpinionGroups>
