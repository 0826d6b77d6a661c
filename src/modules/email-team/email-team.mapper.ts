import { iso, isoOrNull } from '../../core/time.ts'
import type { TeamMessageRow } from './email-team.repository.ts'
import type { TeamMessage } from './email-team.schemas.ts'

export function toTeamMessage(row: TeamMessageRow): TeamMessage {
  return {
    id: row.id,
    user: row.user_id,
    email: row.email,
    subject: row.subject,
    body: row.body,
    created_at: iso(row.created_at),
    sent_at: isoOrNull(row.sent_at),
  }
}
