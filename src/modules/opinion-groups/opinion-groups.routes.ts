import { Type } from 'typebox'
import { NotAuthenticated, NotFound, PermissionDenied, ValidationFailed } from '../../core/errors.ts'
import type { App } from '../../http/app-type.ts'
import { readErrors } from '../../http/schemas.ts'
import { CSV_TYPE } from '../demographics/demographics.mapper.ts'
import { withMediaTypes } from '../demographics/demographics.schemas.ts'
import { opinionGroupsCsv, OPINION_GROUPS_CSV_HEADER } from './opinion-groups.mapper.ts'
import { opinionGroupsSvg } from './opinion-groups.svg.ts'
import type { OpinionScope } from './opinion-groups.repository.ts'
import { OpinionGroups, OpinionGroupsQuery } from './opinion-groups.schemas.ts'
import { opinionGroupChecksSettled, opinionGroupsAt, opinionGroupsFor } from './opinion-groups.service.ts'

const SCOPES: OpinionScope[] = ['collection', 'tag', 'group']
const ONE_SCOPE = 'Give exactly one of collection, tag and group.'

/**
 * Opinion groups of a set of questions: who thinks alike, what sets each group apart, what they all agree on
 * (docs/opinion-groups.md). Aggregates only, the same for everyone, plus the caller's own place.
 */
export function opinionGroupsRoutes(app: App): void {
  // A check started by a request may outlive it: the database stays open until it has ended.
  app.addHook('onClose', () => opinionGroupChecksSettled(app.db))
  app.get('/api/opinion_groups/', {
    schema: {
      summary: 'Opinion groups of a collection, a tag or a group',
      description:
        'The groups of people who answer the questions of `?collection=`, `?tag=` or `?group=` alike (PCA and k-means, as Pol.is), ' +
        'each with its size and representative questions, the questions that unite and divide them, and a map of how many ' +
        'people sit where (squares of fewer than MIN_CELL_SIZE left out). Private answers count in the model; a group or cell ' +
        'of fewer than MIN_CELL_SIZE people is not shown. `me` is the caller’s own place. Kept between requests and checked ' +
        'again in the background; `computed_at` and `answers_counted` say how fresh. `?format=csv` gives the open-data table: ' +
        `${OPINION_GROUPS_CSV_HEADER.join(', ')}. \`?format=svg\` draws the map: the squares, each group at its centre, your own ` +
        'place, and what sets each group apart. Staff may ask for `?groups=K`: the groups at that k, computed now and not kept. ' +
        'See docs/opinion-groups.md.',
      querystring: OpinionGroupsQuery,
      response: {
        200: withMediaTypes('The groups, in JSON, CSV (`?format=csv`) or as an SVG picture (`?format=svg`).', OpinionGroups, {
          'text/csv': Type.String({ description: 'RFC 4180 CSV with a header line, one row per shown group and question or choice' }),
          'image/svg+xml': Type.String({ description: 'The opinion map: squares, groups, your place, and a legend in words' }),
        }),
        ...readErrors,
      },
    },
    config: {
      access: 'anyone',
      formats: ['csv', 'svg'],
      resource: { name: 'Opinion Groups', description: 'Groups of like-minded people, what sets them apart and what unites them.' },
    },
    handler: async (request, reply) => {
      const query = request.query as OpinionGroupsQuery
      const given = SCOPES.filter((scope) => query[scope] !== undefined)
      if (given.length !== 1) throw ValidationFailed(Object.fromEntries((given.length ? given : SCOPES).map((s) => [s, [ONE_SCOPE]])))
      const scope = given[0]
      const settings = {
        db: app.db,
        minCellSize: app.config.minCellSize,
        weightCap: app.config.weightCap,
        answersPerRead: app.config.opinionGroupsAnswersPerRead,
        refreshMs: app.config.opinionGroupsRefreshMs,
        onError: (error: unknown) => app.log.error({ err: error }, `opinion groups of ${scope} ${query[scope]}: background check failed`),
      }
      // As the staff-only routes answer: 401 without a caller, 403 for anyone but staff.
      if (query.groups !== undefined && !request.caller) throw NotAuthenticated()
      if (query.groups !== undefined && !request.caller!.isStaff) throw PermissionDenied()
      const groups =
        query.groups === undefined
          ? await opinionGroupsFor(settings, scope, query[scope]!, request.caller?.id ?? null)
          : await opinionGroupsAt(settings, scope, query[scope]!, request.caller!.id, query.groups)
      if (!groups) throw NotFound()
      if (query.format === 'csv') return reply.type(CSV_TYPE).send(opinionGroupsCsv(groups))
      if (query.format === 'svg') return reply.type('image/svg+xml; charset=utf-8').send(opinionGroupsSvg(groups))
      return groups
    },
  })
}
