// npm run build [-- --out DIR]: compiles src/ into dist/ (or DIR; tsconfig.build.json) and copies the files the
// code reads beside itself. A production install holds package.json, bin/, dist/ and docs/ (package.json "files").
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname))
const outAt = process.argv.indexOf('--out')
const out = outAt === -1 ? path.join(root, 'dist') : path.resolve(process.argv[outAt + 1])
fs.rmSync(out, { recursive: true, force: true })
const tsc = path.join(root, 'node_modules/typescript/bin/tsc')
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', out], { stdio: 'inherit' })
// Everything under src/ that is not TypeScript: the API docs' browser script, the common-passwords list, the SQL.
const assets = []
for (const entry of fs.readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true })) {
  if (entry.isFile() && !entry.name.endsWith('.ts'))
    assets.push(path.relative(path.join(root, 'src'), path.join(entry.parentPath, entry.name)))
}
for (const asset of assets) {
  fs.mkdirSync(path.dirname(path.join(out, asset)), { recursive: true })
  fs.copyFileSync(path.join(root, 'src', asset), path.join(out, asset))
}
// Written last: bin/civic-survey.js runs dist/ only when this stamp is newer than every source file.
fs.writeFileSync(path.join(out, 'BUILT'), `${new Date().toISOString()}\n`)
console.log(`built dist/ (${assets.length} files copied beside the compiled code)`)
