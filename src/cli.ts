import { parseArgs } from 'node:util'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { connectDatabase, connectWhenReachable, type DatabaseHandle } from './db/connect.ts'
import { migrateToLatest } from './db/migrate.ts'
import { DataDirInUse } from './db/data-dir-lock.ts'
import { sql } from 'kysely'
import { appKeysRepository } from './modules/app-keys/app-keys.repository.ts'
import { tokensRepository } from './modules/accounts/tokens.repository.ts'
import { ImportError } from './import/errors.ts'
import { checkReadable, fileProgress } from './import/progress.ts'
import { parseIsoDate } from './import/values.ts'

/** The HTTP app (every route module) loads only for the commands that serve: the others start in a fraction of the time. */
const serverModule = () => import('./server.ts')

const USAGE = `Usage: civic-survey <command> [options]

Commands:
  migrate                                  apply the database migrations
  seed [--scale tiny|demo|large] [--seed N] [--force]
                                           fill the database with deterministic demo data
  app-key create --name NAME               create an application key; prints the key alone
  app-key list                             list application keys (never the keys themselves)
  app-key revoke --id ID                   revoke an application key
  user staff --username NAME [--off]       grant (or withdraw) staff rights
  user sign-out --username NAME            revoke every sign-in token of a user
  recompute [--liquid]                     rebuild every stored figure and counter from the raw rows;
                                           --liquid first resolves every delegation again
  check                                    report every stored figure that differs from a recomputation
                                           (exit status 1 when any does)
  import-census FILE [--date YYYY-MM-DD]   import population by single year of age (ONS mid-year estimates
                                           CSV); replaces the records of that date
  import-areas FILE                        create or update areas from a GeoJSON FeatureCollection
  import-politicians FILE                  create or update politicians from a CSV file
  import-polis DIR [--meta ID,...]         import a Pol.is open-data export as a collection of likert questions,
                                           an account per participant and their answers; comments moderated out
                                           and meta ones (is-meta, or listed by --meta) are kept unpublished
  opinion-groups --collection ID [--groups K] [--polis-code YYYY-MM-DD]
                                           recompute the opinion groups of those questions (or --tag ID, --group ID)
                                           and print every participant's group and place as CSV; --groups K: the
                                           groups at that k, --polis-code: a collection imported from Pol.is drawn
                                           as Pol.is's code of that date drew it (either: computed, not kept)
  serve [--workers N]                      migrate, then serve the API on HOST:PORT; --workers runs N
                                           processes on the port (PostgreSQL server only)
  demo                                     migrate, seed the demo data if empty, create a key and serve
  send-digests                             mail each user whose digest is due their unmailed notifications
                                           (for cron: running it again sends nothing new)

Configuration comes from the environment: see README.md.`

class UsageError extends Error {}

/** The one FILE argument of an import command, and its options. */
function importArgs<O extends Record<string, { type: 'string' | 'boolean' }>>(command: string, args: string[], options: O) {
  let parsed
  try {
    parsed = parseArgs({ args, options, allowPositionals: true })
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`)
  }
  if (parsed.positionals.length !== 1) throw new UsageError(`${command} needs one FILE`)
  checkReadable(parsed.positionals[0])
  return { file: parsed.positionals[0], values: parsed.values }
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`
}

async function importCensusCommand(config: Config, args: string[]): Promise<void> {
  const { file, values } = importArgs('import-census', args, { date: { type: 'string' } })
  const date = values.date === undefined ? null : parseIsoDate(String(values.date))
  if (values.date !== undefined && date === null) throw new UsageError(`--date must be a date YYYY-MM-DD, not "${values.date}"`)
  const { importCensus } = await import('./modules/census/census.import.ts')
  await withMigratedDatabase(config, async ({ db }) => {
    const started = performance.now()
    const progress = fileProgress(file, 'census')
    let result
    try {
      result = await importCensus(db, file, { date, onBytes: progress.update, onStage: progress.stage })
    } finally {
      progress.stop()
    }
    const rate = Math.round(result.records / Math.max(0.001, (performance.now() - started) / 1000))
    console.error(
      `imported ${result.records} census records dated ${date ?? 'none'} (${result.replaced} replaced, ${result.linked} linked to areas) in ${seconds(started)}, ${rate} records/s`,
    )
  })
}

/** An import whose whole work is one call on the file: migrate, import, report in one line. */
async function importFileCommand<R>(
  config: Config,
  command: string,
  args: string[],
  load: () => Promise<(db: DatabaseHandle['db'], file: string) => Promise<R>>,
  report: (result: R) => string,
): Promise<void> {
  const { file } = importArgs(command, args, {})
  const importFile = await load()
  await withMigratedDatabase(config, async ({ db }) => {
    const started = performance.now()
    console.error(`${report(await importFile(db, file))} in ${seconds(started)}`)
  })
}

const importAreasCommand = (config: Config, args: string[]) =>
  importFileCommand(
    config,
    'import-areas',
    args,
    async () => (await import('./modules/areas/areas.import.ts')).importAreas,
    (result) => `imported ${result.features} areas (${result.created} created, ${result.updated} updated)`,
  )

const importPoliticiansCommand = (config: Config, args: string[]) =>
  importFileCommand(
    config,
    'import-politicians',
    args,
    async () => (await import('./modules/politicians/politicians.import.ts')).importPoliticians,
    (result) => `imported ${result.records} politicians (${result.created} created, ${result.updated} updated)`,
  )

/** A directory rather than a file: the Pol.is export's CSV files. */
async function importPolisCommand(config: Config, args: string[]): Promise<void> {
  let parsed
  try {
    parsed = parseArgs({ args, options: { meta: { type: 'string' } }, allowPositionals: true })
  } catch (error) {
    throw new UsageError(`import-polis: ${(error as Error).message}`)
  }
  const { positionals, values } = parsed
  if (positionals.length !== 1) throw new UsageError('import-polis needs one DIR')
  const meta = values.meta === undefined ? [] : values.meta.split(',').map((id) => id.trim())
  if (meta.some((id) => !/^\d{1,9}$/.test(id)))
    throw new UsageError(`import-polis: --meta takes comment ids separated by commas, not "${values.meta}"`)
  const { readPolisExport, importPolis, describePolisImport } = await import('./modules/polis-import/polis.import.ts')
  // The export is read and checked before the database is opened: a bad file never touches it.
  const started = performance.now()
  const plan = await readPolisExport(positionals[0], { meta: meta.map(Number) })
  const reading = performance.now() - started
  await withMigratedDatabase(config, async ({ db }) => {
    // The time reported is reading and writing, without opening and migrating the database.
    const writing = performance.now()
    const result = await importPolis(db, plan)
    console.error(`${describePolisImport(result)} in ${seconds(writing - reading)}`)
  })
}

/** The operator's view of the opinion groups: everyone's group and place, which the API never gives. */
async function opinionGroupsCommand(config: Config, args: string[]): Promise<void> {
  let values
  try {
    values = parseArgs({
      args,
      options: {
        collection: { type: 'string' },
        tag: { type: 'string' },
        group: { type: 'string' },
        groups: { type: 'string' },
        'polis-code': { type: 'string' },
      },
    }).values
  } catch (error) {
    throw new UsageError(`opinion-groups: ${(error as Error).message}`)
  }
  const given = (['collection', 'tag', 'group'] as const).filter((scope) => values[scope] !== undefined)
  if (given.length !== 1) throw new UsageError('opinion-groups needs one of --collection ID, --tag ID, --group ID')
  const scope = given[0]
  const id = Number(values[scope])
  if (!Number.isInteger(id) || id < 1 || id > 2_147_483_647)
    throw new UsageError(`opinion-groups: --${scope} must be an id, not "${values[scope]}"`)
  const research = researchOptions(values.groups, values['polis-code'])
  await withMigratedDatabase(config, async ({ db }) => {
    const { opinionGroupPlacesCsv } = await import('./modules/opinion-groups/opinion-groups.command.ts')
    const csv = await opinionGroupPlacesCsv(
      db,
      scope,
      id,
      { minCellSize: config.minCellSize, weightCap: config.weightCap, answersPerRead: config.opinionGroupsAnswersPerRead },
      research,
    )
    if (csv === null) throw new UsageError(`opinion-groups: there is no ${scope} ${id}`)
    process.stdout.write(csv)
  })
}

/** `--groups K` (2 to 20) and `--polis-code YYYY-MM-DD`, checked; null when neither is given. */
function researchOptions(groups: string | undefined, polisCode: string | undefined) {
  if (groups === undefined && polisCode === undefined) return null
  const k = groups === undefined ? undefined : Number(groups)
  if (k !== undefined && !(Number.isInteger(k) && k >= 2 && k <= 20))
    throw new UsageError(`opinion-groups: --groups must be a number of groups from 2 to 20, not "${groups}"`)
  const date = polisCode === undefined ? undefined : parseIsoDate(polisCode)
  if (date === null) throw new UsageError(`opinion-groups: --polis-code must be a date YYYY-MM-DD, not "${polisCode}"`)
  return { groupCount: k, polisCode: date === undefined ? undefined : new Date(`${date}T00:00:00Z`) }
}

/**
 * The database migrated, then `work` on it. Migrations hold a session-level lock, so behind a transaction pooler
 * they run on the primary itself (DATABASE_DIRECT_URL) and the work through the pooler.
 */
async function withMigratedDatabase<T>(config: Config, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  if (config.databaseDirectUrl) await migrateOnPrimary(config)
  return withDatabase(config, async (handle) => {
    if (!config.databaseDirectUrl) await migrateToLatest(handle.db)
    return work(handle)
  })
}

const migrateOnPrimary = (config: Config) =>
  withDatabase({ ...config, databaseUrl: config.databaseDirectUrl ?? config.databaseUrl }, ({ db }) => migrateToLatest(db))

async function withDatabase<T>(config: Config, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await connectDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    connectTimeoutMs: config.dbConnectTimeoutMs,
  })
  try {
    return await work(handle)
  } finally {
    await handle.close()
  }
}

async function seedCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      scale: { type: 'string', default: 'demo' },
      seed: { type: 'string', default: '1' },
      force: { type: 'boolean', default: false },
    },
  })
  if (!['tiny', 'demo', 'large'].includes(values.scale!)) throw new UsageError(`--scale must be tiny, demo or large, not "${values.scale}"`)
  if (!/^\d+$/.test(values.seed!)) throw new UsageError(`--seed must be a whole number, not "${values.seed}"`)
  const { seedWithProgress } = await import('./seed/progress.ts')
  await withMigratedDatabase(config, async ({ db }) => {
    const summary = await seedWithProgress(db, { scale: values.scale as 'tiny', seed: Number(values.seed), force: values.force! })
    console.error(
      `seeded: ${Object.entries(summary)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}`,
    )
  })
}

async function appKeyCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, id: { type: 'string' } } })
  await withMigratedDatabase(config, async ({ db }) => {
    const keys = appKeysRepository(db)
    if (action === 'create') {
      if (!values.name) throw new UsageError('app-key create needs --name NAME')
      const { key } = await keys.create(values.name)
      process.stdout.write(`${key}\n`)
    } else if (action === 'list') {
      for (const key of await keys.list()) {
        const state = key.revoked_at ? `revoked ${key.revoked_at.toISOString()}` : 'active'
        const used = key.last_used_at ? key.last_used_at.toISOString() : 'never used'
        console.log(`${key.id}\t${key.name}\t${key.key_prefix}…\t${state}\t${used}`)
      }
    } else if (action === 'revoke') {
      if (!values.id || !/^\d+$/.test(values.id)) throw new UsageError('app-key revoke needs --id ID')
      if (!(await keys.revoke(Number(values.id)))) throw new UsageError(`no active application key with id ${values.id}`)
      console.error(`revoked application key ${values.id}`)
    } else {
      throw new UsageError('app-key needs create, list or revoke')
    }
  })
}

async function userCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { values } = parseArgs({ args: rest, options: { username: { type: 'string' }, off: { type: 'boolean', default: false } } })
  if (!values.username) throw new UsageError(`user ${action ?? ''} needs --username NAME`.replace('  ', ' '))
  await withMigratedDatabase(config, async ({ db }) => {
    const user = await db
      .selectFrom('users')
      .select(['id', 'username'])
      .where(sql`lower(username)`, '=', values.username!.toLowerCase())
      .executeTakeFirst()
    if (!user) throw new UsageError(`no user named "${values.username}"`)
    if (action === 'staff') {
      await db.updateTable('users').set({ is_staff: !values.off }).where('id', '=', user.id).execute()
      console.error(`${user.username} (${user.id}) is ${values.off ? 'no longer' : 'now'} staff`)
    } else if (action === 'sign-out') {
      await tokensRepository(db).revokeAllOf(user.id)
      console.error(`every token of ${user.username} (${user.id}) is revoked`)
    } else {
      throw new UsageError('user needs staff or sign-out')
    }
  })
}

async function recomputeCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { liquid: { type: 'boolean', default: false } } })
  const { rebuildAllLiquid } = await import('./engines/liquid/liquid.rebuild.ts')
  const { recomputeStatistics } = await import('./engines/figures/recompute.ts')
  await withMigratedDatabase(config, async ({ db }) => {
    if (values.liquid) {
      const changed = await rebuildAllLiquid(
        db,
        true,
        (done, total) => done % 500 === 0 && console.error(`delegations: ${done}/${total} questions`),
      )
      console.error(`delegations resolved again: ${changed.length} stored values corrected`)
    }
    await recomputeStatistics(db)
    console.error('every stored figure and counter recomputed from the raw rows')
  })
}

/** Prints each difference on a line; the status says whether there was any. */
async function checkCommand(config: Config): Promise<number> {
  const { rebuildAllLiquid } = await import('./engines/liquid/liquid.rebuild.ts')
  const { storedFigureDifferences } = await import('./engines/figures/check.ts')
  const { unreleasedProblems } = await import('./disclosure/batches.ts')
  return withMigratedDatabase(config, async ({ db }) => {
    const liquid = await rebuildAllLiquid(db, false)
    for (const d of liquid) console.log(`liquid\tquestion ${d.question}\t${d.what}\tstored ${d.stored}\tresolved ${d.resolved}`)
    const figures = await storedFigureDifferences(db)
    for (const d of figures)
      console.log(`figure\t${d.table} ${d.id}\t${d.column}\tstored ${String(d.stored)}\trecomputed ${String(d.recomputed)}`)
    const unreleased = await unreleasedProblems(db)
    for (const p of unreleased) console.log(`unreleased\tquestion ${p.question}${p.user === null ? '' : `\tuser ${p.user}`}\t${p.what}`)
    const total = liquid.length + figures.length + unreleased.length
    console.error(total === 0 ? 'every stored figure equals a recomputation' : `${total} stored values differ from a recomputation`)
    return total === 0 ? 0 : 1
  })
}

async function sendDigestsCommand(config: Config): Promise<void> {
  const { sendDigests } = await import('./engines/notifications/digests.ts')
  const { createMailer } = await import('./mail/mailer.ts')
  const { pino } = await import('pino')
  const mailer = createMailer(config, pino({ level: config.logLevel }, process.stderr))
  try {
    await withMigratedDatabase(config, async ({ db }) => {
      const base = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`
      const report = await sendDigests(db, mailer, { base })
      console.error(`${report.digests} digests sent, listing ${report.notifications} notifications`)
    })
  } finally {
    mailer.close()
  }
}

async function serveCommand(config: Config, args: string[]): Promise<void> {
  let workers = 1
  try {
    const { values } = parseArgs({ args, options: { workers: { type: 'string' } } })
    if (values.workers !== undefined) {
      if (!/^\d+$/.test(values.workers) || Number(values.workers) < 1 || Number(values.workers) > 64)
        throw new UsageError(`--workers must be a whole number from 1 to 64, not "${values.workers}"`)
      workers = Number(values.workers)
    }
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError(`serve: ${(error as Error).message}`)
  }
  const start = async () => (await serverModule()).startServer(config)
  if (workers === 1) {
    await start()
    return
  }
  // The embedded database is one process's: only a server is shared.
  if (!config.databaseUrl)
    throw new UsageError('serve --workers needs a PostgreSQL server (DATABASE_URL): the embedded database has one process')
  // Each worker waits for the database and migrates as a single serve does; the migrator's lock makes one of
  // them apply what is pending and the others find it done.
  const { serveWorkers } = await import('./workers.ts')
  await serveWorkers(config, workers, start)
}

async function demoCommand(config: Config): Promise<void> {
  const startup = { timeoutMs: config.dbStartupTimeoutS * 1000, log: (line: string) => console.error(line) }
  const handle = await connectWhenReachable(
    // Seeding and migrating hold session state: on the primary itself behind a pooler.
    { databaseUrl: config.databaseDirectUrl ?? config.databaseUrl, dataDir: config.dataDir, connectTimeoutMs: config.dbConnectTimeoutMs },
    startup,
  )
  await migrateToLatest(handle.db)
  const { isDatabaseEmpty } = await import('./seed/seed.ts')
  if (await isDatabaseEmpty(handle.db)) {
    const { seedWithProgress } = await import('./seed/progress.ts')
    await seedWithProgress(handle.db, { scale: 'demo', seed: 1, force: false })
  }
  const { key } = await appKeysRepository(handle.db).create('demo')
  // On a server, serve opens its own pool, with the requests' statement timeout the seeding above must not have.
  if (handle.kind === 'postgres') await handle.close()
  const server = await serverModule().then(({ startServer }) => startServer(config, handle.kind === 'pglite' ? handle : undefined))
  const root = `${config.publicUrl ?? server.url.replace('0.0.0.0', '127.0.0.1')}/api/?AppAuthorization=${key}`
  console.log(`\nCivic Survey API is running.\n  API root: ${root}\n  Browsable: ${root}&format=api\nPress Ctrl+C to stop.\n`)
}

/**
 * Runs one command and returns the process's exit status (-1: a server is running, and exits on its own signal
 * handlers). bin/civic-survey.js calls it with the process's arguments; the tests call it in their own process.
 */
export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  const [command, ...args] = argv
  if (!command || command === '--help' || command === 'help') {
    console.log(USAGE)
    return command ? 0 : 1
  }
  let config: Config
  try {
    config = loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`)
      return 2
    }
    throw error
  }
  try {
    switch (command) {
      case 'migrate': {
        const applied = await migrateOnPrimary(config)
        console.error(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date')
        return 0
      }
      case 'seed':
        await seedCommand(config, args)
        return 0
      case 'app-key':
        await appKeyCommand(config, args)
        return 0
      case 'user':
        await userCommand(config, args)
        return 0
      case 'recompute':
        await recomputeCommand(config, args)
        return 0
      case 'check':
        return await checkCommand(config)
      case 'send-digests':
        await sendDigestsCommand(config)
        return 0
      case 'import-census':
        await importCensusCommand(config, args)
        return 0
      case 'import-areas':
        await importAreasCommand(config, args)
        return 0
      case 'import-politicians':
        await importPoliticiansCommand(config, args)
        return 0
      case 'import-polis':
        await importPolisCommand(config, args)
        return 0
      case 'opinion-groups':
        await opinionGroupsCommand(config, args)
        return 0
      case 'serve':
        await serveCommand(config, args)
        return -1
      case 'demo':
        await demoCommand(config)
        return -1
      default:
        throw new UsageError(`unknown command "${command}"`)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`)
      return 2
    }
    if (error instanceof ImportError) {
      // Bad input in the file: one line, and the transaction has left the database as it was.
      console.error(`${command}: ${error.message}; nothing was imported`)
      return 2
    }
    if ((error as Error).name === 'DatabaseNotEmpty') {
      console.error((error as Error).message)
      return 1
    }
    if (error instanceof DataDirInUse) {
      // One line and EX_TEMPFAIL: the same command succeeds once the other process stops.
      console.error(error.message)
      return 75
    }
    console.error(error instanceof Error ? error.message : error)
    return 1
  }
}
