import type { App } from '../../http/app-type.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { iso } from '../../core/time.ts'
import { privateReadsFiltered, type PrivateReadRow } from './private-reads.repository.ts'
import { PrivateRead, PrivateReadListQuery } from './private-reads.schemas.ts'

const ORDERING = { read_at: column('private_answer_reads.read_at'), id: column('private_answer_reads.id') }

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
  app.get('/api/private_answer_reads/', {
    schema: {
      summary: 'Staff reads of private answers',
      description:
        'Each response that showed a staff member other people’s private votes (question_votes, ' +
        'question_choice_votes, question_tag_votes, under either name, listings and details): who, when, which ' +
        'votes and whose. Newest first. Staff only.',
      querystring: PrivateReadListQuery,
      response: { 200: Page(PrivateRead), ...readErrors },
    },
    config: {
      access: 'staff',
      resource: { name: 'Private Answer Reads', description: 'Who among staff read whose private answers, and when.' },
    },
    handler: async (request) => {
      const { staff, author, ordering } = request.query
      const terms = orderingTerms(ordering, ORDERING, ['-read_at', '-id'], column('private_answer_reads.id'))
      const result = await pageOfRows<PrivateReadRow>(request, privateReadsFiltered(app.db, { staff, author }), (q) => q.selectAll(), terms)
      return listing(request, result, (rows) => rows.map(toRead))
    },
  })
}
