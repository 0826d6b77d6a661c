import { readFileSync } from 'node:fs'
import swagger from '@fastify/swagger'
import type { App } from '../../http/app-type.ts'
import { tuplesAs2020 } from './json-schema-2020.ts'
import { hoistSharedSchemas } from './shared-schemas.ts'
import { describeRoute, securitySchemes } from './operations.ts'

const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }

const DESCRIPTION = `An open civic opinion API: questions, answers, comments, collections, groups, delegation of votes and
census-weighted results. JSON over HTTP in the conventions of Django REST Framework: errors are \`{"detail": "..."}\`
or \`{"field": ["message"]}\`, listings are pages (\`count\`, \`next\`, \`previous\`, \`results\`), every GET also renders
as a browsable page with \`?format=api\`.

Credentials: an application key (\`AppAuthorization\`, as a query parameter or a header; required when the service
requires keys) and, for a user, a sign-in token from \`POST /auth/login/\` sent as \`Authorization: Token <token>\`.`

/**
 * Registers @fastify/swagger, which collects every route added after it: call before the modules add theirs.
 * The document is built on first use from the routes' own schemas, completed by `describeRoute`, and cached.
 */
export async function registerOpenApi(app: App): Promise<void> {
  const requireAppKey = app.config.requireAppKey
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Civic Survey API', version, description: DESCRIPTION },
      components: { securitySchemes: { ...securitySchemes } },
    },
    // TypeBox writes `const`, which OpenAPI 3.1 (JSON Schema 2020-12) reads as it is.
    convertConstToEnum: false,
    transformObject: (document) => {
      const openapi = (document as { openapiObject: object }).openapiObject
      tuplesAs2020(openapi)
      hoistSharedSchemas(openapi as Parameters<typeof hoistSharedSchemas>[0])
      return openapi
    },
    transform: ({ schema, url, route }) => ({ schema: schema?.hide ? schema : describeRoute(route, schema ?? {}, requireAppKey), url }),
  })
}
