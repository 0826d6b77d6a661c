import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { iso } from '../../core/time.ts'
import { privateReadsPage, type PrivateReadRow } from './private-reads.repository.ts'
import { PrivateRead, PrivateReadListQuery } from './private-reads.schemas.ts'

const toRead = (row: PrivateReadRow) => ({
  id: Number(row.id),
  staff: row.staff_id,
  read_at: iso(row.read_at),
  method: row.method,
  path: row.path,
  question_votes: row.question_vote_ids,
  choice_votes: row.choice_vote_ids,
  authors: row.authors,
})

/** The audit log of staff reading other people's private votes through the vote listings and details. */
export function privateReadRoutes(app: App): void {
  listRoute(app, '/api/private_answer_reads/', {
    summary: 'Staff reads of private answers',
    description:
      'Each response that showed a staff member other people’s private votes (question_votes, ' +
      'question_choice_votes, question_tag_votes, under either name, listings and details): who, when, which ' +
      'votes and whose. Newest first. Staff only.',
    querystring: PrivateReadListQuery,
    item: PrivateRead,
    config: {
      access: 'staff',
      resource: { name: 'Private Answer Reads', description: 'Who among staff read whose private answers, and when.' },
    },
    rows: (request, list) => privateReadsPage(app.db, { staff: request.query.staff, author: request.query.author }, list),
    items: (rows) => rows.map(toRead),
  })
}
