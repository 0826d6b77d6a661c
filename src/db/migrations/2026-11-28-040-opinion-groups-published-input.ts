import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Opinion groups see only what may be published (docs/privacy.md, issue 42). `signature` now covers the public
 * answers and, once k people hold one, the private ones, so a private answer below the threshold starts no recompute;
 * `published_input` fingerprints the answers the published groups were computed from, so a recompute that ends on
 * the same answers (a private answer no group counts) keeps the stored run as it was; `answers_signature` covers
 * every answer, so the places of people the model leaves out are refreshed for themselves alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
ALTER TABLE opinion_group_runs ADD COLUMN published_input text, ADD COLUMN answers_signature text;
`,
  )
}
