import cliProgress from 'cli-progress'
import type { Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import { seedDatabase, type SeedOptions, type SeedSummary } from './seed.ts'

/** Seeds with a progress bar on a terminal, and plain stage lines otherwise. */
export async function seedWithProgress(db: Kysely<Database>, options: Omit<SeedOptions, 'onProgress'>): Promise<SeedSummary> {
  const tty = process.stderr.isTTY
  const bar = tty
    ? new cliProgress.SingleBar(
        { format: ' {stage} [{bar}] {value}/{total}', stream: process.stderr, hideCursor: true },
        cliProgress.Presets.shades_classic,
      )
    : null
  let stage = ''
  try {
    return await seedDatabase(db, {
      ...options,
      onProgress: (name, done, total) => {
        if (name !== stage) {
          stage = name
          if (bar) {
            bar.stop()
            bar.start(total, done, { stage: name.padEnd(14) })
          } else {
            console.error(`seeding ${name} (${total})`)
          }
        }
        bar?.update(done, { stage: name.padEnd(14) })
      },
    })
  } finally {
    bar?.stop()
  }
}
