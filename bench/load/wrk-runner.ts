import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import type { LoadFigures, LoadRun } from './autocannon-runner.ts'

/** Whether wrk is installed (Debian's package): a generator in C, lighter on the shared cores than one in Node. */
export function wrkInstalled(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined
}

/**
 * A crowd's tokens, one per request in turn (wrk's Lua: each thread starts at its own place in the list). The
 * runner leaves the scenario's own Authorization header out of `-H`: wrk.headers would hold both (its keys are
 * case-sensitive), each request would carry two, and the server keeps the first.
 */
const CROWD_SCRIPT = `
local tokens = {}
for line in io.lines(os.getenv("WRK_TOKENS")) do tokens[#tokens + 1] = line end
local counter = 0
function setup(thread) counter = counter + 1; thread:set("start", counter * 7919) end
function init(args) n = start end
function request()
  n = n + 1
  wrk.headers["authorization"] = "Token " .. tokens[(n % #tokens) + 1]
  return wrk.format(nil)
end
`

const milliseconds = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1)

/** One read under wrk, two threads, with its latency distribution; the figures as autocannon's runner gives them. */
export async function runWrk(run: LoadRun): Promise<LoadFigures> {
  // Two threads (wrk wants at least one connection each).
  // wrk takes whole seconds.
  const args = [`-t${Math.min(2, run.connections)}`, `-c${run.connections}`, `-d${Math.ceil(run.duration)}s`, '--latency']
  for (const [name, value] of Object.entries(run.headers ?? {}))
    if (!(run.crowd && name.toLowerCase() === 'authorization')) args.push('-H', `${name}: ${value}`)
  let scratch: string | null = null
  const env = { ...process.env }
  if (run.crowd) {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-wrk-'))
    fs.writeFileSync(path.join(scratch, 'tokens'), run.crowd.join('\n') + '\n')
    fs.writeFileSync(path.join(scratch, 'crowd.lua'), CROWD_SCRIPT)
    env.WRK_TOKENS = path.join(scratch, 'tokens')
    args.push('-s', path.join(scratch, 'crowd.lua'))
  }
  try {
    const { stdout } = await promisify(execFile)('wrk', [...args, run.url], { env, maxBuffer: 16 * 1024 * 1024 })
    const latency = (p: string) => {
      const match = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(stdout)
      return match ? Math.round(milliseconds(match[1]!, match[2]!) * 100) / 100 : 0
    }
    const max = /Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/.exec(stdout)
    const total = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0)
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
    return {
      requests_per_s: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0),
      p50_ms: latency('50'),
      p99_ms: latency('99'),
      max_ms: max ? Math.round(milliseconds(max[1]!, max[2]!) * 100) / 100 : 0,
      total,
      errors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
      non_2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    }
  } finally {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true })
  }
}
