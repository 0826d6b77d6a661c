import type { FastifyRequest } from 'fastify'
import { type TSchema } from 'typebox'
import type { App } from '../../http/app-type.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import type { ListRequest, RowsPage } from '../../db/paging.ts'
import { readErrors } from '../../http/schemas.ts'
import { UrlBuilder } from '../../core/urls.ts'
import { answerRefusalHooks, nullBooleansAbsent, voteIdOf } from './votes.http.ts'
import type { AnswerKindLabel } from '../../core/metrics.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { signedIn } from '../../http/permissions.ts'
import { recordPrivateReads, type AuditedVotes, type VoteShown } from '../private-reads/private-reads.repository.ts'
import { urlsFor } from '../../http/urls.ts'
import { wroteOwnAnswer } from '../../http/own-records.ts'
import type { OwnAnswer } from '../../access/own-records.ts'

/**
 * One kind of vote as a DRF model resource: a listing with filters and ordering, POST to vote (201 new,
 * 200 replacing), and a detail to read (anyone who may see it), edit or withdraw (its voter, or staff).
 */
export interface VoteResource<Row, Item, Query extends { ordering?: string }, Body, Patch> {
  /** URL names serving this resource, e.g. question_votes and question_votes_light. */
  names: string[]
  label: string
  description: string
  item: TSchema
  listQuery: TSchema
  createBody: TSchema
  patchBody: TSchema
  /** A page of the votes the caller may see, narrowed by the filters (a repository's `page`). */
  page: (filters: Query, caller: Caller | null, list: ListRequest) => Promise<RowsPage<Row>>
  /** One vote, if the caller may see it. */
  visible: (id: number, caller: Caller | null) => Promise<Row | undefined>
  toItem: (row: Row, urls: UrlBuilder) => Item
  cast: (caller: Caller, body: Body) => Promise<{ vote: Row; created: boolean }>
  /** Edits return the row as the mapper reads it. */
  edit: (id: number, patch: Patch) => Promise<Row>
  withdraw: (id: number) => Promise<void>
  /** Where staff reads of others' private votes of this kind go in the audit log (rows carry id, user_id, private). */
  audited: AuditedVotes
  /** A written answer as its voter's kept record holds it, so their next read needs no statement. */
  ownAnswer?: (vote: Row) => OwnAnswer
  /** Answers to questions (not tag votes): their refusals are counted under this kind (civic_answer_refusals_total). */
  answerKind?: AnswerKindLabel
}

export function voteResourceRoutes<Row, Item, Query extends { ordering?: string }, Body, Patch>(
  app: App,
  resource: VoteResource<Row, Item, Query, Body, Patch>,
): void {
  /** The voter, for the owner rule; a vote the caller may not see is not there (404). */
  const owner = async (request: FastifyRequest) => {
    const id = voteIdOf(request)
    const row = id === null ? undefined : await resource.visible(id, request.caller)
    return (row as { user_id?: number } | undefined)?.user_id
  }
  const item = (request: FastifyRequest, row: Row) => resource.toItem(row, urlsFor(request))
  /** Staff see others' private votes (docs/votes.md); each response that shows some is logged. */
  const audit = (request: FastifyRequest, rows: Row[]) => recordPrivateReads(app.db, request, resource.audited, rows as VoteShown[])

  for (const name of resource.names) {
    const base = `/api/${name}/`
    listRoute(app, base, {
      summary: `${resource.label}: public ones, and your own private ones`,
      querystring: resource.listQuery,
      item: resource.item,
      config: { access: 'anyone', resource: { name: `${titleOf(name)} List`, description: resource.description } },
      rows: (request, list) => resource.page(request.query as Query, request.caller, list),
      items: async (rows, request) => {
        await audit(request, rows)
        return rows.map((row) => item(request, row))
      },
    })

    app.post(base, {
      schema: {
        summary: `${resource.label}: vote; 201 for a first vote, 200 when it replaces your current one`,
        body: resource.createBody,
        response: { 200: resource.item, 201: resource.item, ...writeErrors },
      },
      config: { access: 'signed-in' },
      // Only while metrics are recorded (METRICS_PORT): otherwise an answer pays for no hook of theirs.
      ...(resource.answerKind && app.config.metrics.port > 0 ? answerRefusalHooks(resource.answerKind) : {}),
      preValidation: nullBooleansAbsent,
      handler: async (request, reply) => {
        const { vote, created } = await resource.cast(signedIn(request), request.body as Body)
        if (resource.ownAnswer) wroteOwnAnswer(request, resource.ownAnswer(vote))
        return reply.code(created ? 201 : 200).send(item(request, vote) as never)
      },
    })

    const detail = `${base}:id/`
    app.get(detail, {
      schema: { summary: `${resource.label}: one vote`, params: IdParams, response: { 200: resource.item, ...readErrors } },
      config: {
        access: 'anyone',
        resource: { name: `${titleOf(name)} Instance`, description: `${resource.description} Its voter may change or withdraw it.` },
      },
      handler: async (request) => {
        const row = await resource.visible((request.params as { id: number }).id, request.caller)
        if (!row) throw NotFound()
        await audit(request, [row])
        return item(request, row)
      },
    })

    app.patch(detail, {
      schema: {
        summary: `${resource.label}: change your vote`,
        params: IdParams,
        body: resource.patchBody,
        response: { 200: resource.item, ...writeErrors },
      },
      config: { access: 'owner', owner },
      preValidation: nullBooleansAbsent,
      handler: async (request) => {
        const row = await resource.edit((request.params as { id: number }).id, request.body as Patch)
        await audit(request, [row])
        return item(request, row)
      },
    })

    app.delete(detail, {
      schema: { summary: `${resource.label}: withdraw your vote`, params: IdParams, response: { 204: NoContent, ...writeErrors } },
      config: { access: 'owner', owner },
      handler: async (request, reply) => {
        await resource.withdraw((request.params as { id: number }).id)
        return reply.code(204).send(null)
      },
    })
  }
}

/** question_votes_light -> Question Votes Light, as DRF names its views. */
function titleOf(name: string): string {
  return name.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase())
}
