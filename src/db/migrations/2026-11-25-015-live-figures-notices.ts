import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

const FAMILY = ['vote_count', 'sum', 'skipped', 'minimum', 'low', 'medium', 'high', 'maximum']
/** The stored figures every other one derives from, and (for questions) whether anyone may see them. */
const FIGURES = [...FAMILY.map((field) => `direct_${field}`), ...FAMILY.map((field) => `liquid_${field}`), 'polarisation']
const changed = (columns: string[]) =>
  `(${columns.map((column) => `OLD.${column}`).join(', ')}) IS DISTINCT FROM (${columns.map((column) => `NEW.${column}`).join(', ')})`

/**
 * Live results (src/modules/live/): each committed change of a question's figures (its own or a choice's,
 * direct or liquid, whatever wrote them) sends the question's id on `question_figures`; a change of a collection's
 * questions sends the collection's id on `collection_items`. Row triggers, so the payload names what changed;
 * PostgreSQL folds a transaction's identical notices, so a vote sends one however many rows it rewrites.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION notify_question_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'question_choices' THEN
    PERFORM pg_notify('question_figures', (CASE WHEN TG_OP = 'DELETE' THEN OLD.question_id ELSE NEW.question_id END)::text);
  ELSE
    PERFORM pg_notify('question_figures', (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END)::text);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION notify_collection_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('collection_items', OLD.parent_id::text); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('collection_items', NEW.parent_id::text); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER questions_live_figures AFTER UPDATE ON questions FOR EACH ROW
  WHEN (${changed([...FIGURES, 'publish'])}) EXECUTE FUNCTION notify_question_figures();
CREATE TRIGGER questions_live_gone AFTER DELETE ON questions FOR EACH ROW EXECUTE FUNCTION notify_question_figures();
CREATE TRIGGER question_choices_live_figures AFTER UPDATE ON question_choices FOR EACH ROW
  WHEN (${changed([...FIGURES, 'text', 'store_number'])}) EXECUTE FUNCTION notify_question_figures();
CREATE TRIGGER question_choices_live_set AFTER INSERT OR DELETE ON question_choices FOR EACH ROW EXECUTE FUNCTION notify_question_figures();
CREATE TRIGGER question_collection_items_live AFTER INSERT OR DELETE OR UPDATE OF parent_id, question_id, "order"
  ON question_collection_items FOR EACH ROW EXECUTE FUNCTION notify_collection_items();
`,
  )
}
