import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { heapMiBFor, loadConfig } from '../../src/config.ts'
import { CLI_SCRIPT } from '../helpers/cli/command.ts'
import { serverUrl } from '../helpers/databases.ts'
import { scratchDataDir } from '../helpers/scratch.ts'
import { cli, freePort, freshDatabase, HIGH_LIMITS, until } from './support.ts'

/**
 * The worker processes of a primary, from the process table: its children running the service (the TypeScript
 * loader may have a child of its own, an esbuild process, which is not a worker).
 */
function childrenOf(pid: number): number[] {
  const result = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
  return result.stdout
    .split('\n')
    .filter((line) => line.includes(CLI_SCRIPT))
    .map((line) => Number.parseInt(line.trim(), 10))
    .filter((child) => child > 0)
}

test('serve --workers refuses a bad count, and the embedded database, in one line', () => {
  const env = { DATABASE_URL: '', DATA_DIR: scratchDataDir() }
  for (const count of ['0', 'two', '65']) {
    const result = cli(['serve', '--workers', count], env)
    assert.equal(result.code, 2)
    assert.match(result.stderr, new RegExp(`^--workers must be a whole number from 1 to 64, not "${count}"`))
  }
  const embedded = cli(['serve', '--workers', '2'], env)
  assert.equal(embedded.code, 2)
  assert.match(embedded.stderr, /^serve --workers needs a PostgreSQL server \(DATABASE_URL\): the embedded database has one process/)
})

test(
  'serve --workers 2: two processes answer on one port, a worker that dies is replaced, SIGTERM stops them all',
  { skip: serverUrl() ? false : 'PostgreSQL only: workers share a database server' },
  async () => {
    const database = await freshDatabase()
    const port = await freePort()
    const child = spawn(process.execPath, [CLI_SCRIPT, 'serve', '--workers', '2'], {
      env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...database.service, ...HIGH_LIMITS },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout!.on('data', (chunk) => (output += chunk))
    child.stderr!.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const base = `http://127.0.0.1:${port}`
    const answers = async () => (await fetch(`${base}/api/questions/?page_size=1`).catch(() => null))?.status === 200
    try {
      await until(answers, `the workers answer\n${output}`, 60_000)
      let seen: number[] = []
      await until(() => (seen = childrenOf(child.pid!)).length === 2, 'two workers', 60_000).catch((error: Error) => {
        throw new Error(`${error.message}: saw ${seen.join(', ') || 'none'}\n${output}`)
      })
      // Each worker's heap is sized to what it keeps (docs/operations.md, Memory), as deploy/start sizes its processes.
      const heap = `--max-old-space-size=${heapMiBFor(loadConfig({ ...process.env, ...database.service }))}`
      for (const pid of seen)
        assert.ok(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(heap), `worker ${pid}: ${heap}`)
      const statuses = await Promise.all(
        Array.from({ length: 20 }, () => fetch(`${base}/api/questions/?page_size=1`).then((r) => r.status)),
      )
      assert.deepEqual(new Set(statuses), new Set([200]))

      const [first] = childrenOf(child.pid!)
      process.kill(first, 'SIGKILL')
      await until(() => {
        const workers = childrenOf(child.pid!)
        return workers.length === 2 && !workers.includes(first)
      }, `a new worker replaces ${first}\n${output}`)
      await until(answers, 'the replacement answers', 60_000)
      assert.match(output, new RegExp(`worker ${first} exited \\(SIGKILL\\); starting another`))

      const workers = childrenOf(child.pid!)
      child.kill('SIGTERM')
      assert.equal(await exited, 0, output)
      for (const pid of workers) assert.throws(() => process.kill(pid, 0), 'every worker has exited')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
      await database.drop()
    }
  },
)

test("deploy/start gives each process the heap the service's defaults call for", () => {
  const start = fs.readFileSync(new URL('../../deploy/start', import.meta.url), 'utf8')
  const given = /--max-old-space-size=(\d+)/.exec(start)
  assert.ok(given, 'deploy/start sets a heap size')
  assert.equal(Number(given[1]), heapMiBFor(loadConfig({})))
})
