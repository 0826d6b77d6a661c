import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'

/** Live result streams (src/modules/live/) answer a GET on a path ending in /live/. */
export const EVENT_STREAM_PATH = /\/live\/(\?.*)?$/

/**
 * An event stream never ends by itself: its answer is read until the first event (or the whole body of an error),
 * then the client goes away, as a browser closing the page does.
 */
export async function injectEventStream(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse> {
  const response = await app.inject({ ...options, payloadAsStream: true })
  const stream = response.stream()
  let body = ''
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    const timer = setTimeout(done, 2_000)
    stream.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
      if (/\ndata: [^\n]*\n\n/.test(body)) done()
    })
    stream.on('end', done)
    stream.on('error', done)
  })
  stream.destroy()
  // The service learns that the client left from its response closing.
  response.raw.res.emit('close')
  return {
    ...response,
    statusCode: response.statusCode,
    headers: response.headers,
    body,
    payload: body,
    json: () => JSON.parse(body),
  } as LightMyRequestResponse
}
