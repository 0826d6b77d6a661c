import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Opinion groups (docs/opinion-groups.md): the latest result of each set of questions (a collection, a tag, a
 * group's questions), kept so that requests read it instead of computing it, and each participant's place in it.
 * `model` is the engine's whole result, the start of the next recompute; `published` is what the API serves; the
 * places are read only by their own participant (and the operator's command), never published.
 */
/**
 * Results derived from the answers, recomputed from them: no process keeps anything read from these tables (a
 * request reads the kept run itself), so their changes are not announced as data changes.
 */
export const DERIVED_TABLES_WITHOUT_NOTICE = ['opinion_group_places', 'opinion_group_runs'] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE TABLE opinion_group_runs (
  scope text NOT NULL CHECK (scope IN ('collection', 'tag', 'group')),
  scope_id integer NOT NULL,
  computed_at timestamptz NOT NULL DEFAULT now(),
  checked_at timestamptz NOT NULL DEFAULT now(),
  answers_counted integer NOT NULL,
  signature text NOT NULL,
  model jsonb NOT NULL,
  published jsonb NOT NULL,
  PRIMARY KEY (scope, scope_id)
);

CREATE TABLE opinion_group_places (
  scope text NOT NULL,
  scope_id integer NOT NULL,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  group_label integer,
  clustered boolean NOT NULL,
  x double precision NOT NULL,
  y double precision NOT NULL,
  PRIMARY KEY (scope, scope_id, user_id),
  FOREIGN KEY (scope, scope_id) REFERENCES opinion_group_runs (scope, scope_id) ON DELETE CASCADE
);
`,
  )
}
