import { sql } from 'kysely'
import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { ValidationFailed, type FieldErrors } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { writeErrors } from '../../http/route-schemas.ts'
import { ListQuery, Nullable, Page, readErrors, Timestamp } from '../../http/schemas.ts'
import { iso, isoOrNull } from '../../core/time.ts'
import { Email } from '../accounts/accounts.schemas.ts'

const TeamMessageCreate = Type.Object({
  subject: Type.Optional(Type.String({ maxLength: 200, description: 'one line; "Message from <email>" when left out' })),
  body: Type.String({ maxLength: 10000, description: 'the message, up to 10,000 characters' }),
  email: Type.Optional({ ...Email, description: 'where the team replies; required without an account e-mail address' }),
})

const TeamMessage = Type.Object({
  id: Type.Integer(),
  user: Nullable(Type.Integer({ description: 'the account that sent it, when signed in' })),
  email: Type.String(),
  subject: Type.String(),
  body: Type.String(),
  created_at: Timestamp,
  sent_at: Nullable(Timestamp),
})

const ORDERING = { created_at: column('team_messages.created_at'), id: column('team_messages.id') }

interface TeamMessageRow {
  id: number
  user_id: number | null
  email: string
  subject: string
  body: string
  created_at: Date
  sent_at: Date | null
}

const toMessage = (row: TeamMessageRow) => ({
  id: row.id,
  user: row.user_id,
  email: row.email,
  subject: row.subject,
  body: row.body,
  created_at: iso(row.created_at),
  sent_at: isoOrNull(row.sent_at),
})

/** email_team: a message to the people running the service, kept and mailed to TEAM_EMAIL. */
export function emailTeamRoutes(app: App): void {
  app.post('/api/email_team/', {
    schema: {
      summary: 'Write to the team',
      description:
        'Kept, then mailed to the team. Signed in, the reply address defaults to your account’s e-mail address. ' +
        'Limited like other operations that send mail (see general_limits, `sensitive`). `sent_at` is null when ' +
        'the mail could not go out; the message is kept all the same.',
      body: TeamMessageCreate,
      response: { 201: TeamMessage, ...writeErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Email Team', description: 'Write to the people running the service: {body, subject?, email?}.' },
    },
    handler: async (request, reply) => {
      const caller = request.caller
      const text = request.body.body.trim()
      const account = caller
        ? await app.db.selectFrom('users').select(['email', 'username']).where('id', '=', caller.id).executeTakeFirst()
        : undefined
      const email = request.body.email ?? account?.email ?? null
      const errors: FieldErrors = {}
      if (text === '') errors.body = ['This field may not be blank.']
      if (!email) errors.email = ['This field is required.']
      if (Object.keys(errors).length) throw ValidationFailed(errors)
      const subject = request.body.subject?.trim() || `Message from ${email}`
      const row = await app.db
        .insertInto('team_messages')
        .values({ user_id: caller?.id ?? null, email: email!, subject, body: text })
        .returningAll()
        .executeTakeFirstOrThrow()
      let sent: TeamMessageRow = row
      try {
        const from = account ? `${account.username} <${email}>` : email!
        await app.mailer.send({ to: app.config.teamEmail, subject: `[team] ${subject}`, text: `From: ${from}\n\n${text}\n` })
        sent = await app.db
          .updateTable('team_messages')
          .set({ sent_at: sql<Date>`now()` })
          .where('id', '=', row.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      } catch (error) {
        request.log.error({ err: error, message: row.id }, 'team message kept but not mailed')
      }
      return reply.code(201).send(toMessage(sent))
    },
  })

  app.get('/api/email_team/', {
    schema: {
      summary: 'Messages written to the team',
      description: 'Newest first. Staff only.',
      querystring: ListQuery({}),
      response: { 200: Page(TeamMessage), ...readErrors },
    },
    config: { access: 'staff' },
    handler: async (request) => {
      const ordering = orderingTerms(request.query.ordering, ORDERING, ['-created_at'], column('team_messages.id'))
      const result = await pageOfRows<TeamMessageRow>(request, app.db.selectFrom('team_messages'), (q) => q.selectAll(), ordering)
      return listing(request, result, (rows) => rows.map(toMessage))
    },
  })
}
