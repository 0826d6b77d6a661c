import type { FastifyRequest } from 'fastify'
import { idParam } from '../../http/permissions.ts'

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
