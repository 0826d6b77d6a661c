import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/** Whether the transaction leaves its notices to its process (src/db/notices-after-commit.ts). */
const DEFERRED = `current_setting('civic.notices_after_commit', true) = 'on'`

/**
 * A NOTIFY queued by a transaction takes PostgreSQL's notify lock at commit and holds it through the commit's
 * flush, so every answering transaction committed one after another. A transaction that sets
 * civic.notices_after_commit (locally) sends none from its triggers: its process sends the same notices once it
 * has committed, coalesced with its other writers' (src/db/notices-after-commit.ts). Every other writer is as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION notify_data_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ${DEFERRED} THEN RETURN NULL; END IF;
  PERFORM pg_notify('data_changed', '');
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION notify_notifications_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ${DEFERRED} THEN RETURN NULL; END IF;
  PERFORM pg_notify('notifications_created', '');
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION notify_question_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ${DEFERRED} THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'question_choices' THEN
    PERFORM pg_notify('question_figures', (CASE WHEN TG_OP = 'DELETE' THEN OLD.question_id ELSE NEW.question_id END)::text);
  ELSE
    PERFORM pg_notify('question_figures', (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END)::text);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION notify_collection_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ${DEFERRED} THEN RETURN NULL; END IF;
  IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('collection_items', OLD.parent_id::text); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('collection_items', NEW.parent_id::text); END IF;
  RETURN NULL;
END $$;
`,
  )
}
