import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { OwnAnswer, OwnRecords } from '../access/own-records.ts'
import { noticesAfterCommit } from '../db/notices-after-commit.ts'
import { OWN_CHANGED_CHANNEL } from '../db/data-changes.ts'
import { lightSendHook } from './hooks.ts'

declare module 'fastify' {
  interface FastifyInstance {
    ownRecords: OwnRecords
  }
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS'])
const WRITTEN = Symbol('own answer written')

/** The answer this request wrote, as the answer call returned it: its writer's kept record takes it in. */
export function wroteOwnAnswer(request: FastifyRequest, answer: OwnAnswer): void {
  ;(request as unknown as Record<symbol, OwnAnswer>)[WRITTEN] = answer
}

/**
 * Whatever a signed-in person writes may change their own fields: before the answer leaves, this process drops
 * their record (or puts in it the answer it wrote) and moves their mark (read by every process), and once committed their id is announced on
 * `own_changed` for processes that share no marks. The answer calls' triggers announce nothing themselves.
 */
export function registerOwnRecords(app: FastifyInstance, records: OwnRecords): void {
  app.decorate('ownRecords', records)
  app.addHook(
    'onSend',
    lightSendHook((request) => {
      const caller = request.caller
      if (caller === null || SAFE.has(request.method)) return
      const written = (request as unknown as Record<symbol, OwnAnswer | undefined>)[WRITTEN]
      return records.changed(caller.id, written).then(() => {
        noticesAfterCommit(app.db).send([{ channel: OWN_CHANGED_CHANNEL, payload: `${caller.id}@${records.sender}` }])
      })
    }),
  )
}
