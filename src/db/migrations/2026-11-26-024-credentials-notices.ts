import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Processes keep sign-in tokens in memory (src/access/credentials-cache.ts). Each change that can make a kept token
 * refuse sends its user's id on `credentials_changed`, so every process forgets that user's tokens: a token revoked
 * or removed, a user's standing changed (active, deleted, staff) or the user removed. Marking a token used (once a
 * minute at most) and new tokens send nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION notify_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Two branches rather than one CASE: PL/pgSQL plans each expression once for a table's rows.
  IF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('credentials_changed', OLD.id::text);
  ELSE
    PERFORM pg_notify('credentials_changed', OLD.user_id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER auth_tokens_credentials AFTER UPDATE OF revoked_at, user_id OR DELETE ON auth_tokens
  FOR EACH ROW EXECUTE FUNCTION notify_credentials_changed();
CREATE TRIGGER users_credentials AFTER UPDATE OF is_active, is_deleted, is_staff OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION notify_credentials_changed();
`,
  )
}
