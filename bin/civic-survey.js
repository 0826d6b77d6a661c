#!/usr/bin/env node
// The command line. Runs the compiled code (dist/, from `npm run build`) when it is newer than every source file,
// as in production (`npm ci --omit=dev` with a built dist/); otherwise the TypeScript sources through tsx, as in
// development, so a build left behind by an older checkout is never run in place of the sources.
import fs from 'node:fs'
import process from 'node:process'

const root = new URL('..', import.meta.url)
const stamp = new URL('dist/BUILT', root)

/** Whether dist/ was built after the last change under src/ (a missing src/ counts as older). */
function compiledIsCurrent() {
  let built
  try {
    built = fs.statSync(stamp).mtimeMs
  } catch {
    return false
  }
  let entries
  try {
    entries = fs.readdirSync(new URL('src', root), { recursive: true, withFileTypes: true })
  } catch {
    return true
  }
  for (const entry of entries) {
    if (entry.isFile() && fs.statSync(`${entry.parentPath}/${entry.name}`).mtimeMs > built) return false
  }
  return true
}

async function sources() {
  try {
    const { register } = await import('tsx/esm/api')
    register()
  } catch {
    return null
  }
  return import('../src/cli.ts')
}

let cli
if (compiledIsCurrent()) {
  process.setSourceMapsEnabled(true)
  cli = await import('../dist/cli.js')
} else {
  cli = await sources()
  if (!cli && fs.existsSync(stamp)) {
    console.error('civic-survey: dist/ is older than src/ and tsx is not installed; running dist/ (npm run build updates it)')
    process.setSourceMapsEnabled(true)
    cli = await import('../dist/cli.js')
  }
  if (!cli) {
    console.error('civic-survey: no compiled code (npm run build) and no tsx to run the sources (npm install)')
    process.exit(1)
  }
}
const code = await cli.main(process.argv.slice(2))
// -1: a server is running and exits on its own signal handlers.
if (code >= 0) process.exit(code)
