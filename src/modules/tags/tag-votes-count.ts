import { sql, type RawBuilder } from 'kysely'

/**
 * A tag's votes_count as everyone sees it: the published count (released private answers only, migration 043) with
 * the answers' deltas not yet folded into it (pending_tag_votes, migration 046). `tags` names the tags row.
 */
export const SHOWN_TAG_VOTES_SQL =
  'tags.published_votes_count + COALESCE((SELECT p.delta FROM pending_tag_votes p WHERE p.tag_id = tags.id), 0)'

export function shownTagVotes(): RawBuilder<number> {
  return sql<number>`(${sql.raw(SHOWN_TAG_VOTES_SQL)})`
}
