import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Social sign-ins in progress: what the callback needs to finish one, whichever process serves it.
 * Rows are single use and expire after minutes; the state itself is kept as its SHA-256 only.
 */
const schema = `
CREATE TABLE social_login_states (
  state_hash text PRIMARY KEY,
  provider text NOT NULL,
  code_verifier text NOT NULL,
  nonce text NOT NULL,
  redirect_uri text NOT NULL,
  next_url text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX social_login_states_expires_idx ON social_login_states (expires_at);
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, schema)
}
