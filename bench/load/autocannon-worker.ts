import autocannon from 'autocannon'
import type { LoadRun } from './autocannon-runner.ts'

/**
 * Runs one autocannon load in its own process, so the generator never shares an event loop with a server.
 * Reads the run (JSON) from argv, prints autocannon's result (JSON) on stdout.
 */
const run = JSON.parse(process.argv[2]) as LoadRun
const result = await autocannon({
  url: run.url,
  connections: run.connections,
  duration: run.duration,
  method: run.method ?? 'GET',
  headers: run.headers,
  body: run.body,
})
console.log(JSON.stringify(result))
