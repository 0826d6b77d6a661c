import type { App } from '../../http/app-type.ts'
import { iso } from '../../core/time.ts'
import { Comment, Report, ReportBody } from './comments.schemas.ts'
import { loadComment, reportComment, setHidden } from './comments.service.ts'
import { IdParams, writeErrors } from '../../http/route-schemas.ts'
import { drfBody } from '../../http/drf-body.ts'
import { signedIn } from '../../http/permissions.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** Reports by anyone signed in; hiding and showing again by staff. */
export function moderationRoutes(app: App): void {
  app.post('/api/comments/:id/report/', {
    schema: {
      summary: 'Report a comment to the moderators: 201 the first time, 200 with the same report afterwards',
      params: IdParams,
      body: ReportBody,
      response: { 200: Report, 201: Report, ...writeErrors },
    },
    config: {
      access: 'signed-in',
      resource: { name: 'Comment Report', description: 'Tell the moderators that a comment breaks the rules.' },
    },
    preValidation: drfBody({ trim: ['reason'] }),
    handler: async (request, reply) => {
      const { report, created } = await reportComment(app.db, signedIn(request), request.params.id, request.body.reason ?? '')
      return reply
        .code(created ? 201 : 200)
        .send({ id: report.id, comment: report.comment_id, reason: report.reason, created_at: iso(report.created_at) })
    },
  })

  for (const [action, hidden] of [
    ['hide', true],
    ['unhide', false],
  ] as const) {
    app.post(`/api/comments/:id/${action}/`, {
      schema: {
        summary: hidden ? 'Hide a comment from everyone but staff and its author' : 'Show a hidden comment again',
        params: IdParams,
        response: { 200: Comment, ...writeErrors },
      },
      config: {
        access: 'staff',
        resource: {
          name: hidden ? 'Comment Hide' : 'Comment Unhide',
          description: hidden ? 'Staff: hide a comment.' : 'Staff: show a hidden comment again.',
        },
      },
      handler: async (request) => {
        await setHidden(app.db, signedIn(request), request.params.id, hidden)
        return loadComment(viewContextOf(app, request), request.params.id)
      },
    })
  }
}
