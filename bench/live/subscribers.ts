import http from 'node:http'

/**
 * Live subscribers in a process of their own (`fork`ed by live.bench.ts), so that reading 10,000 streams shares
 * no event loop with the service or with the votes. Messages from the parent:
 *   { open: url, count }      open `count` streams to `url`; answers { ready, failed } once each got an event
 *   { watch: marker }         from now on, count events and note when each stream first receives `marker`
 *   { report: true, waitMs }  once every stream has the marker, or after waitMs, answers
 *                             { arrivals: epoch ms per stream (null: never), events: per stream since watch }
 *   { close: true }           closes every stream and exits
 */
interface Stream {
  request: http.ClientRequest
  buffer: string
  events: number
  arrival: number | null
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity })
const streams: Stream[] = []
let marker: string | null = null
let pendingWatch: NodeJS.Timeout | null = null

function open(url: string, count: number): Promise<{ ready: number; failed: number }> {
  let ready = 0
  let failed = 0
  return new Promise((resolve) => {
    const settle = () => ready + failed === count && resolve({ ready, failed })
    let started = 0
    // In batches, as a crowd arrives, not all in one tick.
    const batch = () => {
      for (let i = 0; i < 250 && started < count; i++, started++) {
        let first = true
        const stream: Stream = { request: null as never, buffer: '', events: 0, arrival: null }
        stream.request = http.get(url, { agent, headers: { accept: 'text/event-stream' } }, (response) => {
          if (response.statusCode !== 200) {
            failed += 1
            response.resume()
            return settle()
          }
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => {
            stream.buffer += chunk
            let end: number
            while ((end = stream.buffer.indexOf('\n\n')) >= 0) {
              const block = stream.buffer.slice(0, end)
              stream.buffer = stream.buffer.slice(end + 2)
              if (!block.includes('\ndata: ')) continue
              if (first) {
                first = false
                ready += 1
                settle()
              }
              stream.events += 1
              if (marker !== null && stream.arrival === null && block.includes(marker)) stream.arrival = Date.now()
            }
          })
        })
        stream.request.on('error', () => {
          if (first) {
            first = false
            failed += 1
            settle()
          }
        })
        streams.push(stream)
      }
      if (started < count) setTimeout(batch, 20)
    }
    batch()
  })
}

type Message = { open?: string; count?: number; watch?: string; report?: boolean; waitMs?: number; close?: boolean }
process.on('message', (message: Message) => void handle(message))

async function handle(message: Message) {
  if (message.open) process.send!(await open(message.open, message.count!))
  else if (message.watch) {
    marker = message.watch
    for (const stream of streams) {
      stream.events = 0
      stream.arrival = null
    }
  } else if (message.report) {
    const deadline = Date.now() + (message.waitMs ?? 10_000)
    const check = () => {
      if (streams.every((stream) => stream.arrival !== null) || Date.now() > deadline) {
        process.send!({ arrivals: streams.map((stream) => stream.arrival), events: streams.map((stream) => stream.events) })
      } else pendingWatch = setTimeout(check, 20)
    }
    check()
  } else if (message.close) {
    if (pendingWatch) clearTimeout(pendingWatch)
    for (const stream of streams) stream.request.destroy()
    process.exit(0)
  }
}
