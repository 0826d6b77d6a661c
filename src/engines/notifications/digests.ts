import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Mailer } from '../../mail/mailer.ts'
import { digestMail } from '../../mail/templates.ts'
import { digestsRepository } from './digests.repository.ts'
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
  for (const userId of await digestsRepository(db).waitingUsers(USERS_A_RUN)) {
    await db.transaction().execute(async (trx) => {
      const repository = digestsRepository(trx)
      const user = await repository.lockRecipient(userId)
      if (!user) return
      const stored = (user.settings as { digest?: DigestFrequency } | null)?.digest
      const frequency = stored && stored in DIGEST_PERIOD_DAYS ? stored : stored === 'never' ? 'never' : DEFAULT_DIGEST
      if (frequency === 'never' || !user.email || !user.is_active || user.is_deleted) {
        await repository.markAllMailed(userId)
        return
      }
      const periodHours = DIGEST_PERIOD_DAYS[frequency as 'daily' | 'weekly'] * 24 - SLACK_HOURS
      if (user.last_digest_at && Date.now() - new Date(user.last_digest_at).getTime() < periodHours * 3600_000) return
      const rows = await repository.unmailed(userId)
      if (rows.length === 0) return
      await mailer.send({
        to: user.email,
        ...digestMail(
          user.username,
          frequency as 'daily' | 'weekly',
          rows.map((row) => ({ message: row.message, link: row.url ? `${links.base}${row.url}` : null })),
        ),
      })
      await repository.markMailed(
        userId,
        rows.map((row) => row.id),
      )
      report.digests += 1
      report.notifications += rows.length
    })
  }
  return report
}
