/**
 * The layering of src/ (README, "Architecture"), checked in CI: `npm run layers`. From the bottom, each layer
 * importing only from those below it:
 *   db, config <- core (no Fastify; db's table types only) <- access, disclosure, engines (and the senders, the
 *   import readers) <- http (what routes are declared with, and the app's hooks) <- modules (resources)
 *   <- app, server, workers, cli (the entry points).
 * Beyond the named rules, no-folder-cycles refuses any import that would turn an existing edge between folders around.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle means two pieces own each other: move the shared piece below both.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Resources depend on each other one way only: a shared piece lives below both (core, db, access, users).',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-knows-no-fastify',
      severity: 'error',
      comment: 'src/core is the kernel every layer uses; it must not depend on the HTTP framework or anything above it.',
      from: { path: '^src/core/' },
      to: { path: ['node_modules/(fastify|@fastify)/', '^src/(http|modules|engines|access|disclosure|app)'] },
    },
    {
      name: 'no-edge-below-routes',
      severity: 'error',
      comment:
        'Repositories, services and mappers are called by routes, workers and the command line alike: they take plain values, not requests.',
      from: { path: ['\\.(repository|service|mapper)\\.ts$', '^src/(core|db|access|disclosure|engines)/'] },
      to: { path: ['^src/http/', 'node_modules/(fastify|@fastify)/'] },
    },
    {
      name: 'engines-never-import-resources',
      severity: 'error',
      comment: 'Engines (figures, statistics, liquid, notification delivery) serve resources; a resource is never below them.',
      from: { path: '^src/(engines|db|access|disclosure)/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'http-knows-no-resource',
      severity: 'error',
      comment:
        'src/http is what every resource declares its routes with, and the hooks the app registers: it sits below the resources, so it never imports one.',
      from: { path: '^src/http/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'entry-points-on-top',
      severity: 'error',
      comment: 'The app, the server, the workers and the command line put the layers together; nothing below them imports one.',
      from: { path: '^src/', pathNot: '^src/(app|server|workers|cli)(\\.ts$|/)' },
      to: { path: '^src/(app|server|workers|cli)(\\.ts$|/)' },
    },
    {
      name: 'routes-build-no-sql',
      severity: 'error',
      comment: 'Routes declare; repositories query. A route that imports Kysely is building a query.',
      from: { path: '\\.routes\\.ts$' },
      to: { path: 'node_modules/kysely/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: { path: ['^src/', 'node_modules/(fastify|@fastify|kysely)/'] },
    exclude: { path: ['^src/db/schema\\.generated\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
}
