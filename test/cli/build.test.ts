import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { commandDatabase, type CommandDatabase } from '../helpers/databases.ts'
import { freePort } from '../helpers/free-port.ts'
import { until } from '../reliability/support.ts'

/**
 * The production install (README, Production): the compiled code of `npm run build`, with package.json, bin/ and
 * docs/, and only the runtime dependencies (`npm ci --omit=dev`, from npm's cache). `migrate` and `serve` run there
 * without tsx or TypeScript, on a blank database, and serve the API.
 */
let app: string
let database: CommandDatabase

const run = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 })

before(async () => {
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-production-'))
  const built = run(process.execPath, ['scripts/build.js', '--out', path.join(app, 'dist')], process.cwd())
  assert.equal(built.status, 0, `npm run build:\n${built.stdout}\n${built.stderr}`)
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(file, path.join(app, file))
  for (const dir of ['bin', 'docs']) fs.cpSync(dir, path.join(app, dir), { recursive: true })
  const installed = run('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], app)
  assert.equal(installed.status, 0, `npm ci --omit=dev:\n${installed.stdout}\n${installed.stderr}`)
  database = await commandDatabase('blank')
})

after(async () => {
  await database?.cleanup()
  if (app) fs.rmSync(app, { recursive: true, force: true })
})

test('the production install holds no development tool', () => {
  for (const tool of ['tsx', 'typescript', 'eslint', 'esbuild'])
    assert.equal(fs.existsSync(path.join(app, 'node_modules', tool)), false, `node_modules/${tool} is not installed`)
  assert.ok(fs.existsSync(path.join(app, 'dist', 'cli.js')))
  assert.ok(fs.existsSync(path.join(app, 'dist', 'modules', 'accounts', 'data', 'common-passwords.txt.gz')), 'data beside the code')
})

test('migrate and serve run the compiled code and answer the API', { timeout: 300_000 }, async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...database.env, LOG_LEVEL: 'warn', NODE_ENV: 'production' }
  if (!database.env.DATABASE_URL) delete env.DATABASE_URL
  const migrated = run(process.execPath, ['bin/civic-survey.js', 'migrate'], app, env)
  assert.equal(migrated.status, 0, `migrate:\n${migrated.stdout}\n${migrated.stderr}`)
  assert.match(migrated.stdout + migrated.stderr, /applied 2026-11-22-001-initial-schema/)

  const port = await freePort()
  const server = spawn(process.execPath, ['bin/civic-survey.js', 'serve'], { cwd: app, env: { ...env, PORT: String(port) } })
  let output = ''
  server.stdout.on('data', (chunk) => (output += chunk))
  server.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => server.on('exit', resolve))
  const base = `http://127.0.0.1:${port}`
  try {
    const ready = async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200
    await until(ready, `the compiled serve is ready\n${output}`, 60_000)
    const root = await fetch(`${base}/api/`)
    assert.equal(root.status, 200)
    assert.ok(((await root.json()) as Record<string, string>).questions.endsWith('/api/questions/'))
    const questions = await fetch(`${base}/api/questions/?page_size=5`)
    assert.equal(questions.status, 200)
    const page = (await questions.json()) as { count: number; results: unknown[] }
    assert.deepEqual([page.count, page.results], [0, []])
    // A page read from docs/, the version from package.json and the API docs' script: all found from dist/.
    const help = await fetch(`${base}/api/help/`)
    assert.equal(help.status, 200)
    assert.match(((await help.json()) as { content: string }).content, /^# /)
    const openapi = (await (await fetch(`${base}/api/schema/`)).json()) as { info: { version: string } }
    assert.equal(openapi.info.version, JSON.parse(fs.readFileSync('package.json', 'utf8')).version)
    assert.equal((await fetch(`${base}/api/docs/static/docs-page.js`)).status, 200)
    // A password in the common list is refused: the list is read from beside the compiled code.
    const weak = await fetch(`${base}/auth/register/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'weakling', email: 'weak@example.org', password: 'password123' }),
    })
    assert.equal(weak.status, 400)
    assert.ok(((await weak.json()) as Record<string, unknown>).password, 'the password is refused by name')
    assert.doesNotMatch(output, /tsx|\.ts:\d/, 'no TypeScript source ran')
  } finally {
    server.kill('SIGTERM')
    assert.equal(await exited, 0, output)
  }
})
