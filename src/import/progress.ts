import fs from 'node:fs'
import cliProgress from 'cli-progress'
import { ImportError } from './errors.ts'

export interface FileProgress {
  /** Bytes of the file read so far. */
  update(bytes: number): void
  /** A stage after reading (writing, linking) shown on the bar. */
  stage(name: string): void
  stop(): void
}

/** A progress bar over a file's bytes on stderr when it is a terminal; nothing otherwise. */
export function fileProgress(file: string, label: string): FileProgress {
  if (!process.stderr.isTTY) return { update: () => {}, stage: () => {}, stop: () => {} }
  const total = fs.statSync(file).size
  const bar = new cliProgress.SingleBar(
    {
      format: ' {stage} [{bar}] {percentage}% {value}/{total} MB',
      stream: process.stderr,
      hideCursor: true,
      formatValue: (value, _options, type) => (type === 'value' || type === 'total' ? (value / 1e6).toFixed(1) : String(value)),
    },
    cliProgress.Presets.shades_classic,
  )
  bar.start(total, 0, { stage: label.padEnd(12) })
  return {
    update: (bytes) => bar.update(Math.min(bytes, total)),
    stage: (name) => bar.update({ stage: name.padEnd(12) }),
    stop: () => bar.stop(),
  }
}

/** Refuses a path that is not a readable file, in one line. */
export function checkReadable(file: string): void {
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
  } catch {
    throw new ImportError(`${file}: no such file`)
  }
  if (!stat.isFile()) throw new ImportError(`${file}: not a file`)
}
