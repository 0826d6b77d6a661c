/**
 * The test files bundled before they run: each test process then loads a few JavaScript files instead of
 * compiling and resolving some 450 TypeScript modules one by one through a loader hook, which cost about
 * 2.5 s of CPU per file (docs/testing.md). Packages stay outside the bundles, loaded from node_modules.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'

/** Where the bundles go: under node_modules, so that the packages they import resolve as from the sources. */
export const BUNDLE_DIR = path.resolve('node_modules/.cache/civic-survey-tests')

/**
 * A module's own location stays its source's: files read beside a module (documents, data, the API's package.json)
 * are found as when it runs from source, whatever chunk the bundler puts it in.
 */
const sourceLocation: Plugin = {
  name: 'source-location',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/, namespace: 'file' }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8')
      if (!source.includes('import.meta.')) return { contents: source, loader: 'ts' }
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
      return { contents, loader: 'ts' }
    })
  },
}

/** Bundles the test files (paths relative to the project); answers each one's bundle, by the same path. */
export async function bundleTestFiles(files: string[]): Promise<Map<string, string>> {
  fs.rmSync(BUNDLE_DIR, { recursive: true, force: true })
  await build({
    entryPoints: files,
    outdir: BUNDLE_DIR,
    outbase: '.',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [sourceLocation],
  })
  return new Map(files.map((file) => [file, path.join(BUNDLE_DIR, file.replace(/\.ts$/, '.mjs'))]))
}
