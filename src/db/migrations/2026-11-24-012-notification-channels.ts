import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Each notification carries the channels its recipient's settings chose when it was written (in the app, the
 * e-mail digest, push), and when push and e-mail delivered it: delivery then needs no settings, and a change of
 * settings never resends or withdraws what was decided. A statement trigger wakes the push senders of every
 * process (they claim due rows with SKIP LOCKED, so each is pushed once).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
ALTER TABLE notifications
  ADD COLUMN in_app boolean NOT NULL DEFAULT true,
  ADD COLUMN push boolean NOT NULL DEFAULT false,
  ADD COLUMN email boolean NOT NULL DEFAULT false,
  ADD COLUMN pushed_at timestamptz,
  ADD COLUMN emailed_at timestamptz;
DROP INDEX notifications_user_idx;
CREATE INDEX notifications_inbox_idx ON notifications (user_id, id) WHERE in_app;
CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE in_app AND read_at IS NULL;
CREATE INDEX notifications_push_due_idx ON notifications (id) WHERE push AND pushed_at IS NULL;
CREATE INDEX notifications_email_due_idx ON notifications (user_id, id) WHERE email AND emailed_at IS NULL;

ALTER TABLE notification_settings ADD COLUMN last_digest_at timestamptz;

CREATE FUNCTION notify_notifications_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('notifications_created', '');
  RETURN NULL;
END $$;
CREATE TRIGGER notifications_created AFTER INSERT ON notifications FOR EACH STATEMENT EXECUTE FUNCTION notify_notifications_created();
`,
  )
}
