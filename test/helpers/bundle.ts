/**
 * The test files bundled before they run: each test process then loads a few JavaScript files instead of
 * compiling and resolving some 450 TypeScript modules one by one through a loader hook, which cost about
 * 2.5 s of CPU per file (docs/testing.md). Packages are bundled too (resolving a few hundred files of
 * node_modules cost another 0.5 s a process), except those that read files beside their own code or start workers.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'

/**
 * Where a run's bundles go: under node_modules, so that the packages they import resolve as from the sources; one
 * folder per run (CIVIC_TEST_RUN), since CI runs two suites side by side from one checkout.
 */
export const BUNDLES_DIR = path.resolve('node_modules/.cache/civic-survey-tests')
const bundleDir = () => path.join(BUNDLES_DIR, process.env.CIVIC_TEST_RUN ?? 'run')

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

/**
 * Packages loaded from node_modules rather than bundled: they read files beside their code (the WebAssembly
 * database, the OpenAPI meta-schemas), start workers by file name (pino's transports), drive a browser or a
 * compiler, or load optional native code.
 */
const PACKAGES_LEFT_OUT = [
  '@electric-sql/pglite',
  '@seriousme/openapi-schema-validator',
  'playwright-core',
  'esbuild',
  'tsx',
  'pg-native',
  'oidc-provider',
  'pino',
]

/** The command line as the tests start it (test/helpers/cli/command.ts), bundled with them. */
const CLI_ENTRY = 'test/helpers/cli/civic-survey.ts'

/**
 * Bundles the test files (paths relative to the project); answers each one's bundle, by the same path, and a
 * function that removes the bundles.
 */
export async function bundleTestFiles(files: string[]): Promise<{ bundles: Map<string, string>; cliScript: string; remove: () => void }> {
  const outdir = bundleDir()
  fs.rmSync(outdir, { recursive: true, force: true })
  await build({
    entryPoints: [...files, CLI_ENTRY],
    outdir,
    outbase: '.',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: PACKAGES_LEFT_OUT,
    // Bundled CommonJS packages require node's own modules: an ES module has no `require` of its own.
    banner: { js: "import { createRequire as __civicRequire } from 'node:module'; const require = __civicRequire(import.meta.url);" },
    // Read only with TEST_SOURCE_MAPS=1 (test/run.ts).
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [sourceLocation],
  })
  const bundled = (file: string) => path.join(outdir, file.replace(/\.ts$/, '.mjs'))
  return {
    bundles: new Map(files.map((file) => [file, bundled(file)])),
    cliScript: bundled(CLI_ENTRY),
    remove: () => fs.rmSync(outdir, { recursive: true, force: true }),
  }
}
