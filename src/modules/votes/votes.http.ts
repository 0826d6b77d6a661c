import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { idParam } from '../../http/permissions.ts'
import { answerRefused, refusalReasonOf, type AnswerKindLabel, type AnswerRefusalReason } from '../../core/metrics.ts'

/** What the vote routes share: parameters, error bodies and body clean-up. */

/**
 * `private: null` or `skipped: null` read as absent: a boolean has no null (coercion would make it
 * false), and an absent `private` has a meaning of its own, the user's default.
 */
export async function nullBooleansAbsent(request: FastifyRequest): Promise<void> {
  const body = request.body
  if (!body || typeof body !== 'object' || Array.isArray(body)) return
  const record = body as Record<string, unknown>
  for (const key of ['private', 'skipped']) if (record[key] === null) delete record[key]
}

/** The vote a detail URL names, by its id; null when the id cannot be one (404). */
export function voteIdOf(request: FastifyRequest): number | null {
  return idParam(request)
}

/** The reason of a refusal whose error said nothing of it, by its status code. */
function reasonOfStatus(statusCode: number): AnswerRefusalReason {
  if (statusCode === 400 || statusCode === 413 || statusCode === 415) return 'invalid'
  if (statusCode === 401 || statusCode === 403) return 'unauthenticated'
  if (statusCode === 429) return 'throttled'
  return 'other'
}

/**
 * The hooks of a route that casts answers, counting its refusals (every 4xx) by reason
 * (civic_answer_refusals_total): what the code that refused named (a rule of the database, a lost race), a body the
 * schema refused, else what the status code says. The answers taken are counted where they are written. Registered
 * only while metrics are recorded; synchronous, so they add no promise to the request.
 */
export function answerRefusalHooks(kind: AnswerKindLabel) {
  const reasons = new WeakMap<FastifyRequest, AnswerRefusalReason>()
  return {
    onError: function noteAnswerRefusal(request: FastifyRequest, _reply: FastifyReply, error: FastifyError, done: () => void): void {
      const reason = refusalReasonOf(error) ?? (error.validation ? 'invalid' : undefined)
      if (reason) reasons.set(request, reason)
      done()
    },
    onResponse: function countAnswerRefusal(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      const status = reply.statusCode
      if (status >= 400 && status < 500) answerRefused(kind, reasons.get(request) ?? reasonOfStatus(status))
      done()
    },
  }
}
