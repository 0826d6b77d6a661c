import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'

const Anything = Type.Unknown({ description: 'any JSON or form body' })

/** `/auth/echo/` answers with what it was sent, so client developers can see how their requests arrive. */
export function echoRoutes(app: App): void {
  const resource = { name: 'Echo', description: 'Answers with the request it received, for client debugging.' }
  app.get('/auth/echo/', {
    schema: { summary: 'Echo the query parameters', response: { 200: Type.Record(Type.String(), Type.Unknown()) } },
    config: { access: 'anyone', resource },
    handler: async (request) => request.query as Record<string, unknown>,
  })
  app.post('/auth/echo/', {
    schema: { summary: 'Echo the request body as parsed', body: Anything, response: { 200: Anything } },
    config: { access: 'anyone', resource },
    handler: async (request, reply) => reply.serializer(JSON.stringify).send(request.body as never),
  })
}
