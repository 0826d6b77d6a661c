import { parseArgs } from 'node:util'
import type { DatabaseHandle } from '../db/connect.ts'
import { checkReadable, fileProgress } from '../import/progress.ts'
import { parseIsoDate } from '../import/values.ts'
import { parseCommandArgs, UsageError, type Command } from './command.ts'
import { withMigratedDatabase } from './database.ts'

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`
}

export const seed: Command = {
  name: 'seed',
  usage: [['seed [--scale tiny|demo|large] [--seed N] [--force]', 'fill the database with deterministic demo data']],
  async run(config, args) {
    const { values } = parseArgs({
      args,
      options: {
        scale: { type: 'string', default: 'demo' },
        seed: { type: 'string', default: '1' },
        force: { type: 'boolean', default: false },
      },
    })
    if (!['tiny', 'demo', 'large'].includes(values.scale))
      throw new UsageError(`--scale must be tiny, demo or large, not "${values.scale}"`)
    if (!/^\d+$/.test(values.seed)) throw new UsageError(`--seed must be a whole number, not "${values.seed}"`)
    const { seedWithProgress } = await import('../seed/progress.ts')
    await withMigratedDatabase(config, async ({ db }) => {
      const summary = await seedWithProgress(db, { scale: values.scale as 'tiny', seed: Number(values.seed), force: values.force })
      console.error(
        `seeded: ${Object.entries(summary)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ')}`,
      )
    })
  },
}

/** The one FILE argument of an import command, and its options. */
function importArgs<O extends Record<string, { type: 'string' | 'boolean' }>>(command: string, args: string[], options: O) {
  const parsed = parseCommandArgs(command, args, options, true)
  if (parsed.positionals.length !== 1) throw new UsageError(`${command} needs one FILE`)
  checkReadable(parsed.positionals[0])
  return { file: parsed.positionals[0], values: parsed.values }
}

export const importCensus: Command = {
  name: 'import-census',
  usage: [
    [
      'import-census FILE [--date YYYY-MM-DD]',
      'import population by single year of age (ONS mid-year estimates',
      'CSV); replaces the records of that date',
    ],
  ],
  async run(config, args) {
    const { file, values } = importArgs('import-census', args, { date: { type: 'string' } })
    const date = values.date === undefined ? null : parseIsoDate(String(values.date))
    if (values.date !== undefined && date === null) throw new UsageError(`--date must be a date YYYY-MM-DD, not "${values.date}"`)
    const { importCensus } = await import('../modules/census/census.import.ts')
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
  },
}

/** An import whose whole work is one call on the file: migrate, import, report in one line. */
function importFileCommand<R>(
  name: string,
  description: string,
  load: () => Promise<(db: DatabaseHandle['db'], file: string) => Promise<R>>,
  report: (result: R) => string,
): Command {
  return {
    name,
    usage: [[`${name} FILE`, description]],
    async run(config, args) {
      const { file } = importArgs(name, args, {})
      const importFile = await load()
      await withMigratedDatabase(config, async ({ db }) => {
        const started = performance.now()
        console.error(`${report(await importFile(db, file))} in ${seconds(started)}`)
      })
    },
  }
}

export const importAreas = importFileCommand(
  'import-areas',
  'create or update areas from a GeoJSON FeatureCollection',
  async () => (await import('../modules/areas/areas.import.ts')).importAreas,
  (result) => `imported ${result.features} areas (${result.created} created, ${result.updated} updated)`,
)

export const importPoliticians = importFileCommand(
  'import-politicians',
  'create or update politicians from a CSV file',
  async () => (await import('../modules/politicians/politicians.import.ts')).importPoliticians,
  (result) => `imported ${result.records} politicians (${result.created} created, ${result.updated} updated)`,
)

/** A directory rather than a file: the Pol.is export's CSV files. */
export const importPolis: Command = {
  name: 'import-polis',
  usage: [
    [
      'import-polis DIR [--meta ID,...]',
      'import a Pol.is open-data export as a collection of likert questions,',
      'an account per participant and their answers; comments moderated out',
      'and meta ones (is-meta, or listed by --meta) are kept unpublished',
    ],
  ],
  async run(config, args) {
    const { positionals, values } = parseCommandArgs('import-polis', args, { meta: { type: 'string' } }, true)
    if (positionals.length !== 1) throw new UsageError('import-polis needs one DIR')
    const meta = values.meta === undefined ? [] : values.meta.split(',').map((id) => id.trim())
    if (meta.some((id) => !/^\d{1,9}$/.test(id)))
      throw new UsageError(`import-polis: --meta takes comment ids separated by commas, not "${values.meta}"`)
    const { readPolisExport, importPolis, describePolisImport } = await import('../modules/polis-import/polis.import.ts')
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
  },
}
