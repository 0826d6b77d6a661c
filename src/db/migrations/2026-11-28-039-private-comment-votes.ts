import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Private comment votes get the promise of private answers (docs/privacy.md): what others see of them follows the
 * public votes, kept beside the counts of every vote and filled from the votes already there.
 * - comments.public_direct_maximum / public_direct_minimum: the active public up and down votes; a comment's
 *   tallies count its private votes only once it holds MIN_CELL_SIZE of them (the difference with
 *   direct_maximum / direct_minimum is its private votes);
 * - users.public_count_comment_votes: the voter's active public comment votes, the count_comment_votes that
 *   other people see.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
ALTER TABLE comments
  ADD COLUMN public_direct_maximum integer NOT NULL DEFAULT 0,
  ADD COLUMN public_direct_minimum integer NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN public_count_comment_votes integer NOT NULL DEFAULT 0;

UPDATE comments c SET public_direct_maximum = v.up, public_direct_minimum = v.down
FROM (SELECT comment_id, count(*) FILTER (WHERE value = 5) AS up, count(*) FILTER (WHERE value = 1) AS down
  FROM comment_votes WHERE active AND NOT private GROUP BY comment_id) v
WHERE c.id = v.comment_id;

UPDATE users u SET public_count_comment_votes = v.n
FROM (SELECT user_id, count(*) AS n FROM comment_votes WHERE active AND NOT private GROUP BY user_id) v
WHERE u.id = v.user_id;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
ALTER TABLE users DROP COLUMN public_count_comment_votes;
ALTER TABLE comments DROP COLUMN public_direct_maximum, DROP COLUMN public_direct_minimum;
`,
  )
}
