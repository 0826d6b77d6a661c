import { sql, type Kysely } from 'kysely'
import type { Database } from '../../../db/database.ts'
import { hashSecret } from '../../../core/secrets.ts'
import type { Slot } from './social.providers.ts'

export interface LoginState {
  code_verifier: string
  nonce: string
  redirect_uri: string
  next_url: string | null
}

/**
 * Code-flow sign-ins between their start and the provider's callback, kept in the database so that any
 * process can finish what another started. Each works once, for ten minutes.
 */
export function loginStatesRepository(db: Kysely<Database>) {
  return {
    async save(state: string, provider: Slot, values: LoginState): Promise<void> {
      await db
        .deleteFrom('social_login_states')
        .where('expires_at', '<', sql<Date>`now()`)
        .execute()
      await db
        .insertInto('social_login_states')
        .values({ state_hash: hashSecret(state), provider, ...values, expires_at: sql`now() + interval '10 minutes'` })
        .execute()
    },

    /** Removes the state and answers what it kept; undefined when it is unknown, used or expired. */
    async take(state: string, provider: Slot): Promise<LoginState | undefined> {
      return db
        .deleteFrom('social_login_states')
        .where('state_hash', '=', hashSecret(state))
        .where('provider', '=', provider)
        .where('expires_at', '>', sql<Date>`now()`)
        .returning(['code_verifier', 'nonce', 'redirect_uri', 'next_url'])
        .executeTakeFirst()
    },
  }
}
