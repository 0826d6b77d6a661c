import http from 'node:http'

export interface SseEvent {
  id: string | null
  event: string
  data: any
}

export interface SseStream {
  status: number
  headers: http.IncomingHttpHeaders
  /** Every event so far, in order. */
  events: SseEvent[]
  /** Comment lines (keep-alives) so far. */
  comments: number
  /** The `retry` the server asked for, if any. */
  retry: number | null
  /** The next event not yet taken (by this call), waiting up to `limitMs`. */
  next(limitMs?: number): Promise<SseEvent>
  /** Waits until an event satisfies the condition; returns it. */
  until(condition: (event: SseEvent) => boolean, what: string, limitMs?: number): Promise<SseEvent>
  /** The body when the answer is not a stream, or the stream once the server ended it. */
  ended: Promise<string>
  close(): void
}

/** A Server-Sent Events client reading the wire format itself, as a browser's EventSource does. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      response.setEncoding('utf8')
      let buffer = ''
      let raw = ''
      let taken = 0
      let waiters: (() => void)[] = []
      let resolveEnded: (text: string) => void = () => {}
      const stream: SseStream = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        events: [],
        comments: 0,
        retry: null,
        async next(limitMs = 5_000) {
          await waitFor(() => stream.events.length > taken, 'the next event', limitMs)
          return stream.events[taken++]
        },
        async until(condition, what, limitMs = 5_000) {
          let found: SseEvent | undefined
          await waitFor(() => (found = stream.events.slice(taken).find(condition)) !== undefined, what, limitMs)
          taken = stream.events.indexOf(found!) + 1
          return found!
        },
        ended: new Promise((done) => (resolveEnded = done)),
        close: () => request.destroy(),
      }
      const wake = () => {
        const waiting = waiters
        waiters = []
        for (const waiter of waiting) waiter()
      }
      const waitFor = (condition: () => boolean, what: string, limitMs: number) =>
        new Promise<void>((done, fail) => {
          const timer = setTimeout(
            () => fail(new Error(`no ${what} within ${limitMs} ms; events: ${JSON.stringify(stream.events)}`)),
            limitMs,
          )
          const check = () => {
            if (condition()) {
              clearTimeout(timer)
              done()
            } else waiters.push(check)
          }
          check()
        })
      const dispatch = (block: string) => {
        let id: string | null = null
        let event = 'message'
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) stream.comments += 1
          else if (line.startsWith('id: ')) id = line.slice(4)
          else if (line.startsWith('event: ')) event = line.slice(7)
          else if (line.startsWith('data: ')) data.push(line.slice(6))
          else if (line.startsWith('retry: ')) stream.retry = Number(line.slice(7))
        }
        if (data.length) stream.events.push({ id, event, data: JSON.parse(data.join('\n')) })
        wake()
      }
      response.on('data', (chunk: string) => {
        raw += chunk
        buffer += chunk
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          dispatch(buffer.slice(0, end))
          buffer = buffer.slice(end + 2)
        }
      })
      response.on('close', () => {
        resolveEnded(raw)
        wake()
      })
      resolve(stream)
    })
    request.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)))
  })
}
