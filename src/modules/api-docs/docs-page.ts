import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { escapeMarkup as escapeHtml } from '../../core/markup.ts'

/** Swagger UI's files as @fastify/swagger-ui ships them: the page works without any network but this service's. */
const SWAGGER_UI_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')), 'static')

const ASSET_TYPES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
}
/** Starts Swagger UI on this service's document; a file of its own, as the page's policy forbids inline script. */
const INITIALIZER = 'docs-page.js'

export interface Asset {
  type: string
  content: Buffer
}

const loaded = new Map<string, Asset>()

/** A file the page loads, read once on first use, or undefined for any other name. */
export function docsAsset(name: string): Asset | undefined {
  const cached = loaded.get(name)
  if (cached) return cached
  let asset: Asset | undefined
  if (name === INITIALIZER) {
    asset = { type: 'application/javascript; charset=utf-8', content: readFileSync(new URL('./docs-page.browser.js', import.meta.url)) }
  } else if (Object.hasOwn(ASSET_TYPES, name)) {
    asset = { type: ASSET_TYPES[name], content: readFileSync(path.join(SWAGGER_UI_DIR, name)) }
  }
  if (asset) loaded.set(name, asset)
  return asset
}

/** Scripts and styles from this service only; Swagger UI sets inline styles and shows data: images. */
export const DOCS_PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * The page at /api/docs/. Where the service requires application keys, the key the page was opened with
 * (`?AppAuthorization=`) goes on every file it loads, as on any other request; the script reads it from the
 * page's address for the document and the requests tried from the page.
 */
export function docsPage(appKey: string | null): string {
  const suffix = appKey ? `?AppAuthorization=${encodeURIComponent(appKey)}` : ''
  const asset = (name: string) => escapeHtml(`/api/docs/static/${name}${suffix}`)
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Civic Survey API reference</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="stylesheet" href="${asset('index.css')}">
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}" sizes="32x32">
<link rel="icon" type="image/png" href="${asset('favicon-16x16.png')}" sizes="16x16">
</head>
<body>
<noscript><p>This reference needs JavaScript. The document it shows is at <a href="/api/schema/${escapeHtml(suffix)}">/api/schema/</a>
(JSON, or YAML with <code>?format=yaml</code>).</p></noscript>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('swagger-ui-standalone-preset.js')}"></script>
<script src="${asset(INITIALIZER)}"></script>
</body>
</html>
`
}
