import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * Hooks that are synchronous unless their work returns a promise. Fastify runs an async hook through a promise
 * and a microtask even when it has nothing to wait for; on a kept answer's path those hops were a large part of
 * the service's own cost per request. The work may throw: Fastify answers the error as from any hook.
 */
type Step = (request: FastifyRequest, reply: FastifyReply) => void | Promise<unknown>
type Done = (error?: Error) => void

const settle = (pending: Promise<unknown>, done: Done): void =>
  void pending.then(
    () => done(),
    (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
  )

/** onRequest, preValidation, preHandler, onResponse. */
export function lightHook(step: Step) {
  return (request: FastifyRequest, reply: FastifyReply, done: Done): void => {
    const pending = step(request, reply)
    if (pending) settle(pending, done)
    else done()
  }
}

/** preParsing, keeping the request's payload as it is. */
export function lightParsingHook(step: Step) {
  return (request: FastifyRequest, reply: FastifyReply, _payload: unknown, done: Done): void => {
    const pending = step(request, reply)
    if (pending) settle(pending, done)
    else done()
  }
}

/** onSend: the work answers the payload to send instead (or a promise of it); undefined keeps it as it is. */
export function lightSendHook(step: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void): void => {
    const result = step(request, reply, payload)
    if (result instanceof Promise)
      result.then(
        (replaced: unknown) => done(null, replaced),
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      )
    else done(null, result)
  }
}
