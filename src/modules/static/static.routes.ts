import type { App } from '../../http/app-type.ts'

/** A neutral silhouette, so every user's `photo` is a URL that resolves. */
const DEFAULT_AVATAR = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 128 128" width="128" height="128">
<rect width="128" height="128" fill="#d7dde4"/><circle cx="64" cy="50" r="24" fill="#8a97a6"/>
<path d="M20 118c4-26 22-40 44-40s40 14 44 40z" fill="#8a97a6"/></svg>
`

export function staticRoutes(app: App): void {
  app.get('/static/default-avatar.svg', {
    schema: { summary: 'Default avatar for users without a photo', hide: true },
    config: { access: 'anyone' },
    handler: async (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(DEFAULT_AVATAR),
  })
}
