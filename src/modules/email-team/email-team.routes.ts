import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { writeErrors } from '../../http/route-schemas.ts'
import { ListQuery } from '../../http/schemas.ts'
import { toTeamMessage } from './email-team.mapper.ts'
import { teamMessagesRepository } from './email-team.repository.ts'
import { TeamMessage, TeamMessageCreate } from './email-team.schemas.ts'
import { writeToTeam } from './email-team.service.ts'

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
      const mail = {
        mailer: app.mailer,
        teamEmail: app.config.teamEmail,
        logError: (error: unknown, id: number) => request.log.error({ err: error, message: id }, 'team message kept but not mailed'),
      }
      const row = await writeToTeam(app.db, mail, request.caller, request.body)
      return reply.code(201).send(toTeamMessage(row))
    },
  })

  listRoute(app, '/api/email_team/', {
    summary: 'Messages written to the team',
    description: 'Newest first. Staff only.',
    querystring: ListQuery({}),
    item: TeamMessage,
    config: { access: 'staff' },
    rows: (_request, list) => teamMessagesRepository(app.db).page(list),
    items: (rows) => rows.map(toTeamMessage),
  })
}
