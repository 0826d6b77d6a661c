import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DatabaseHandle } from '../../db/connect.ts'
import { isDatabaseUnavailable } from '../../db/availability.ts'
import { NOTIFICATIONS_CREATED_CHANNEL } from '../../db/data-changes.ts'
import type { PushDevice, PushOutcome, PushSender } from '../../push/push-sender.ts'
import { pushDeliveryRepository } from './push-delivery.repository.ts'

const BATCH = 100
const SWEEP_MS = 30_000
/** A push the provider keeps refusing is given up after this long, so it stops being tried. */
const GIVE_UP_MS = 24 * 3600_000

/** Where a delivery run reports (the server's logger). */
export interface DeliveryLog {
  info(report: object, message: string): void
  warn(context: object, message: string): void
  error(context: object, message: string): void
}

export interface DeliveryReport {
  notifications: number
  sent: number
  gone: number
  retry: number
}

/**
 * Pushes one batch of due notifications (push chosen, not yet pushed) to their recipients' active devices. The
 * rows are claimed FOR UPDATE SKIP LOCKED, so deliverers in several processes never push one twice; a device the
 * provider reports gone is deactivated; a refusal or an outage leaves the row due for the next run.
 */
export async function deliverDuePushes(db: Kysely<Database>, sender: PushSender): Promise<DeliveryReport> {
  return db.transaction().execute(async (trx) => {
    const repository = pushDeliveryRepository(trx)
    const due = await repository.claimDue(BATCH)
    const report: DeliveryReport = { notifications: due.length, sent: 0, gone: 0, retry: 0 }
    if (due.length === 0) return report
    const devices = await repository.activeDevices([...new Set(due.map((row) => row.user_id))])
    const goneDevices = new Set<number>()
    const delivered: number[] = []
    for (const row of due) {
      const notification = {
        message: row.message,
        url: row.url ?? undefined,
        actor:
          row.actor_id === null
            ? undefined
            : { id: row.actor_id, username: row.username!, name: `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim() || row.username! },
      }
      const mine = devices.filter((device) => device.user_id === row.user_id && !goneDevices.has(device.id))
      const outcomes: PushOutcome[] = await Promise.all(mine.map((device) => sender.send(device as PushDevice, notification)))
      outcomes.forEach((outcome, index) => {
        report[outcome] += 1
        if (outcome === 'gone') goneDevices.add(mine[index].id)
      })
      const givenUp = Date.now() - new Date(row.created_at).getTime() > GIVE_UP_MS
      if (!outcomes.includes('retry') || givenUp) delivered.push(row.id)
    }
    await repository.deactivateDevices([...goneDevices])
    await repository.markPushed(delivered)
    return report
  })
}

/**
 * In each serving process: a run whenever a notification is written anywhere (NOTIFY), and a sweep every 30 s
 * for what is still due. Runs never overlap within a process; a full batch runs again at once.
 */
export async function startPushDelivery(
  db: Kysely<Database>,
  database: Pick<DatabaseHandle, 'listenForChanges'>,
  sender: PushSender,
  log: DeliveryLog,
): Promise<{ close(): Promise<void> }> {
  let running: Promise<void> | null = null
  let again = false
  let closed = false
  const run = (): void => {
    if (closed) return
    if (running) {
      again = true
      return
    }
    running = (async () => {
      try {
        do {
          again = false
          const report = await deliverDuePushes(db, sender)
          if (report.notifications) log.info(report, 'push notifications delivered')
          if (report.notifications === BATCH && report.retry === 0) again = true
        } while (again && !closed)
      } catch (error) {
        // An outage is the pool's to report (a warning per lost connection) and /readyz's; the sweep outlives it.
        if (isDatabaseUnavailable(error)) log.warn({ err: error }, 'push delivery: the database is unavailable; the sweep tries again')
        else log.error({ err: error }, 'push delivery failed; the sweep tries again')
      } finally {
        running = null
      }
    })()
  }
  const changes = await database.listenForChanges({ onChange: run, onLost: () => {} }, [NOTIFICATIONS_CREATED_CHANNEL])
  const sweep = setInterval(run, SWEEP_MS)
  sweep.unref()
  run()
  return {
    async close() {
      closed = true
      clearInterval(sweep)
      await changes.close()
      await running
    },
  }
}
