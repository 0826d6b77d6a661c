/**
 * A node:test reporter that writes the time each test file took (the sum of its top-level tests, which
 * run one after another inside the file; start-up not counted), slowest first, to the file named by
 * TEST_TIMES (`TEST_TIMES=<file> npm test`), to see where the suite's time goes. The file is rewritten
 * as results arrive, since `--test-force-exit` ends the run before a reporter's last word. Plain
 * JavaScript: node loads reporters before any loader hook.
 */
import fs from 'node:fs'
import process from 'node:process'

export default async function* fileTimes(source) {
  const times = new Map()
  // Bundled files (test/helpers/bundle.ts) are named by their source.
  const cwd = new RegExp(`^${process.cwd()}/(node_modules/.cache/civic-survey-tests/[^/]+/)?`)
  const seconds = (ms) => `${(ms / 1000).toFixed(1).padStart(7)} s`
  for await (const event of source) {
    const { file, nesting, details } = event.data ?? {}
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || !file || nesting !== 0) continue
    times.set(file, (times.get(file) ?? 0) + (details?.duration_ms ?? 0))
    const lines = [...times]
      .sort((a, b) => b[1] - a[1])
      .map(([path, ms]) => `${seconds(ms)}  ${path.replace(cwd, '').replace(/\.mjs$/, '.ts')}`)
    const total = [...times.values()].reduce((a, b) => a + b, 0)
    fs.writeFileSync(process.env.TEST_TIMES, [...lines, `${seconds(total)}  (all ${times.size} files)`, ''].join('\n'))
  }
  yield ''
}
