import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { round } from '../shared.ts'
import { runWrk } from './wrk-runner.ts'

/** One load: the URL (path included), its headers, and how hard and how long. */
export interface LoadRun {
  url: string
  connections: number
  duration: number
  method?: string
  headers?: Record<string, string>
  body?: string
  /**
   * A write scenario's requests: the answering loop over tags, the surge over ten questions, the survey surge
   * (everyone walking one collection in its order), or the broadcast (new people answering its first question).
   */
  write?:
    | { kind: 'answering'; tokens: string[]; tags: number[] }
    | { kind: 'surge'; tokens: string[]; questions: number[] }
    | { kind: 'survey'; tokens: string[]; collection: number; questions: number }
    | { kind: 'broadcast'; tokens: string[]; collection: number; questions: number }
  /** The application key every write request sends (reads carry theirs in their URL). */
  appKey?: string
  /** A read from many people: each request with the next of these tokens. */
  crowd?: string[]
  /** What makes the load: autocannon (default), or wrk where installed (reads only). */
  generator?: 'autocannon' | 'wrk'
}

export interface LoadFigures {
  requests_per_s: number
  p50_ms: number
  p99_ms: number
  max_ms: number
  total: number
  errors: number
  non_2xx: number
}

/** Runs the load in a child process (autocannon-worker.ts, or wrk for reads) and keeps the figures the report shows. */
export async function runLoad(run: LoadRun): Promise<LoadFigures> {
  if (run.generator === 'wrk' && !run.write) return runWrk(run)
  // The run goes to the worker in a file: a crowd's 20,000 tokens are far past what one argument may hold (E2BIG).
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-autocannon-'))
  const file = path.join(scratch, 'run.json')
  fs.writeFileSync(file, JSON.stringify(run))
  let stdout: string
  try {
    const worker = new URL('./autocannon-worker.ts', import.meta.url).pathname
    stdout = (await promisify(execFile)(process.execPath, ['--import', 'tsx', worker, file], { maxBuffer: 64 * 1024 * 1024 })).stdout
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  const result = JSON.parse(stdout)
  return {
    requests_per_s: round(result.requests.total / result.duration, 1),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    total: result.requests.total,
    errors: result.errors + result.timeouts,
    non_2xx: result.non2xx,
  }
}
