import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * One number that moves whenever the questions a walk can serve change (created, removed, published, opened,
 * closed, retitled, tagged, put in a collection or a group), and never for answers and figures. Processes keep the
 * next question's walks in memory and read this number with the caller's answers in one statement: an equal
 * number means the kept walk is exact (src/modules/next-question/kept-walks.ts).
 *
 * The bump is a deferred row trigger, so it runs at commit, after the transaction's other locks: the one row is
 * locked last and briefly, and once per transaction.
 */
/** Its one row moves with changes of tables that announce themselves: it needs no notice of its own. */
export const VERSION_TABLES_WITHOUT_NOTICE = ['question_set_version'] as const

const WATCHED: [table: string, events: string][] = [
  ['questions', 'INSERT OR DELETE OR UPDATE OF question, description, slug, subtype, publish, start_at, end_at'],
  ['question_choices', 'INSERT OR DELETE OR UPDATE OF text, store_number, question_id'],
  ['question_tags', 'INSERT OR DELETE OR UPDATE OF question_id, tag_id'],
  ['question_collection_items', 'INSERT OR DELETE OR UPDATE OF parent_id, question_id, "order"'],
  ['group_question_connections', 'INSERT OR DELETE OR UPDATE OF group_id, question_id, active'],
]

export async function up(db: Kysely<unknown>): Promise<void> {
  const triggers = WATCHED.map(
    ([table, events]) => `
CREATE CONSTRAINT TRIGGER ${table}_question_set AFTER ${events} ON ${table}
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_question_set_version();
CREATE TRIGGER ${table}_question_set_truncate AFTER TRUNCATE ON ${table}
  FOR EACH STATEMENT EXECUTE FUNCTION bump_question_set_version();`,
  ).join('\n')
  await runScript(
    db,
    `
CREATE TABLE question_set_version (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  version bigint NOT NULL DEFAULT 1
);
INSERT INTO question_set_version DEFAULT VALUES;

CREATE FUNCTION bump_question_set_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('civic.question_set_bumped', true) = 'on' THEN RETURN NULL; END IF;
  PERFORM set_config('civic.question_set_bumped', 'on', true);
  UPDATE question_set_version SET version = version + 1;
  RETURN NULL;
END $$;
${triggers}
`,
  )
}
