import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Mailer } from '../../mail/mailer.ts'
import { digestMail } from '../../mail/templates.ts'
import { DEFAULT_DIGEST, DIGEST_PERIOD_DAYS, type DigestFrequency } from './notification-kinds.ts'

/**
 * A digest is due once its period has passed since the last one, less this slack, so that a daily cron job
 * running a few seconds earlier than yesterday still sends today's.
 */
const SLACK_HOURS = 2
/** Users handled a run, each in a transaction of their own. */
const USERS_A_RUN = 10_000

export interface DigestReport {
  digests: number
  notifications: number
}

/**
 * Sends each user whose digest is due one mail listing their notifications chosen for e-mail and not yet mailed,
 * then marks them mailed, all in the user's transaction with their row locked (SKIP LOCKED: two runs at once
 * share the users, never one user). Running it again at once sends nothing. Notifications of someone who takes
 * no digest (`never`, no address, a closed account) are marked so they do not pile up.
 */
export async function sendDigests(db: Kysely<Database>, mailer: Mailer, links: { base: string }): Promise<DigestReport> {
  const report: DigestReport = { digests: 0, notifications: 0 }
  const waiting = await db
    .selectFrom('notifications')
    .select('user_id')
    .distinct()
    .where('email', '=', true)
    .where('emailed_at', 'is', null)
    .limit(USERS_A_RUN)
    .execute()
  for (const { user_id: userId } of waiting) {
    await db.transaction().execute(async (trx) => {
      const user = await trx
        .selectFrom('users as u')
        .leftJoin('notification_settings as s', 's.user_id', 'u.id')
        .select(['u.email', 'u.is_active', 'u.is_deleted', 'u.username', 's.settings', 's.last_digest_at'])
        .where('u.id', '=', userId)
        .forNoKeyUpdate('u')
        .skipLocked()
        .executeTakeFirst()
      if (!user) return
      const stored = (user.settings as { digest?: DigestFrequency } | null)?.digest
      const frequency = stored && stored in DIGEST_PERIOD_DAYS ? stored : stored === 'never' ? 'never' : DEFAULT_DIGEST
      const due = trx.updateTable('notifications').where('user_id', '=', userId).where('email', '=', true).where('emailed_at', 'is', null)
      if (frequency === 'never' || !user.email || !user.is_active || user.is_deleted) {
        await due.set({ emailed_at: sql<Date>`now()` }).execute()
        return
      }
      const periodHours = DIGEST_PERIOD_DAYS[frequency as 'daily' | 'weekly'] * 24 - SLACK_HOURS
      if (user.last_digest_at && Date.now() - new Date(user.last_digest_at).getTime() < periodHours * 3600_000) return
      const rows = await trx
        .selectFrom('notifications')
        .select(['id', 'message', 'url', 'created_at'])
        .where('user_id', '=', userId)
        .where('email', '=', true)
        .where('emailed_at', 'is', null)
        .orderBy('id')
        .execute()
      if (rows.length === 0) return
      await mailer.send({
        to: user.email,
        ...digestMail(
          user.username,
          frequency as 'daily' | 'weekly',
          rows.map((row) => ({ message: row.message, link: row.url ? `${links.base}${row.url}` : null })),
        ),
      })
      await trx
        .updateTable('notifications')
        .set({ emailed_at: sql<Date>`now()` })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute()
      await trx
        .insertInto('notification_settings')
        .values({ user_id: userId, last_digest_at: sql<Date>`now()` })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_digest_at: sql<Date>`now()` }))
        .execute()
      report.digests += 1
      report.notifications += rows.length
    })
  }
  return report
}
