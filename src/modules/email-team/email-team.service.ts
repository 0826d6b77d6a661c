import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { ValidationFailed, type FieldErrors } from '../../core/errors.ts'
import type { Mailer } from '../../mail/mailer.ts'
import { teamMessagesRepository, type TeamMessageRow } from './email-team.repository.ts'
import type { TeamMessageCreate } from './email-team.schemas.ts'

/** Where a message to the team goes, and where a failure to mail it is told. */
export interface TeamMail {
  mailer: Mailer
  teamEmail: string
  logError: (error: unknown, messageId: number) => void
}

/**
 * Keeps the message, then mails it to the team. Signed in, the reply address defaults to the account's. A
 * message that could not be mailed is kept all the same, with no `sent_at`.
 */
export async function writeToTeam(
  db: Kysely<Database>,
  mail: TeamMail,
  caller: Caller | null,
  message: TeamMessageCreate,
): Promise<TeamMessageRow> {
  const repository = teamMessagesRepository(db)
  const text = message.body.trim()
  const account = caller ? await repository.sender(caller.id) : undefined
  const email = message.email ?? account?.email ?? null
  const errors: FieldErrors = {}
  if (text === '') errors.body = ['This field may not be blank.']
  if (!email) errors.email = ['This field is required.']
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  const subject = message.subject?.trim() || `Message from ${email}`
  const row = await repository.add({ user_id: caller?.id ?? null, email: email!, subject, body: text })
  try {
    const from = account ? `${account.username} <${email}>` : email!
    await mail.mailer.send({ to: mail.teamEmail, subject: `[team] ${subject}`, text: `From: ${from}\n\n${text}\n` })
    return await repository.markSent(row.id)
  } catch (error) {
    mail.logError(error, row.id)
    return row
  }
}
