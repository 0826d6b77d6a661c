import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Every committed change to what a public answer shows sends one notice on DATA_CHANGED_CHANNEL, so each service
 * process drops the answers it keeps in memory (src/http/response-cache.ts). Statement triggers, and PostgreSQL
 * folds identical notices of one transaction into one: a vote costs one notice however many tables it touches.
 * Tables no public answer reads (tokens, codes, events) send none. A table made later adds its trigger with
 * noticeTriggerSql (src/db/data-changes.ts); a test checks that every other table has one.
 */
export const TABLES_WITHOUT_NOTICE = [
  'analytics_events',
  'app_keys',
  'auth_tokens',
  'notification_settings',
  'notifications',
  'one_time_codes',
  'payment_webhook_events',
  'push_devices',
  'service_secrets',
  'social_login_states',
  'user_compares',
]

export async function up(db: Kysely<unknown>): Promise<void> {
  const skipped = TABLES_WITHOUT_NOTICE.map((name) => `'${name}'`).join(', ')
  await runScript(
    db,
    `
CREATE FUNCTION notify_data_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('data_changed', '');
  RETURN NULL;
END $$;

DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public'
      AND tablename NOT IN (${skipped}) AND tablename NOT LIKE 'kysely_%' LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION notify_data_changed()',
      t.tablename || '_notice', t.tablename);
  END LOOP;
END $$;
`,
  )
}
