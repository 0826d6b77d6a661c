import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { ApiError, ValidationFailed } from '../../../core/errors.ts'
import { ErrorBody, FieldErrorsBody } from '../../../http/schemas.ts'
import { baseUrl } from '../../../http/urls.ts'
import type { SocialProviderConfig } from '../../../config.ts'
import { tokenName } from '../accounts.routes.ts'
import { viewContextOf } from '../../../http/view-context.ts'
import { loadMe } from '../accounts.service.ts'
import { tokensRepository } from '../tokens.repository.ts'
import { allowedNext, finishCodeFlow, identityFromAccessToken, identityFromCode, startCodeFlow, withFragment } from './social.flows.ts'
import type { SocialIdentity } from './social.identity.ts'
import { findProvider, SLOTS, type Slot } from './social.providers.ts'
import {
  AccessTokenBody,
  CallbackQuery,
  CodeSignedIn,
  Redirect,
  SessionSignedIn,
  SocialSignedIn,
  TokenOnly,
  TokenOrCodeBody,
  YetiSignedIn,
} from './social.schemas.ts'
import { signInIdentity } from './social.signin.ts'
import { loginStatesRepository } from './login-states.repository.ts'

const errors = { 400: FieldErrorsBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody, 502: ErrorBody }
const resource = (name: string, description: string) => ({ name, description })

/**
 * Sign-in through an OpenID Connect provider: the code flow run by the service (social1..social4), and
 * access tokens or codes that clients obtained themselves. The service keeps no server sessions: every
 * sign-in answers a token.
 */
export function socialRoutes(app: App): void {
  const signIn = async (request: FastifyRequest, provider: SocialProviderConfig, identity: SocialIdentity) => {
    const { userId, created } = await signInIdentity(app.db, provider.slot, identity)
    const token = await tokensRepository(app.db).issue(userId, tokenName(request, provider.name))
    return { userId, created, token }
  }

  /** token-only and session sign-ins: an access token, or a code the client obtained itself. */
  const signInFromBody = async (request: FastifyRequest, body: TokenOrCodeBody) => {
    const provider = findProvider(app.config, body.provider)
    if (body.access_token !== undefined)
      return signIn(request, provider, await identityFromAccessToken(request, provider, body.access_token))
    if (body.code === undefined) throw ValidationFailed({ access_token: ['This field is required unless a code is sent.'] })
    if (body.redirect_uri === undefined) throw ValidationFailed({ redirect_uri: ['This field is required with a code.'] })
    if (!URL.canParse(body.redirect_uri)) throw ValidationFailed({ redirect_uri: ['Enter a valid URL.'] })
    return signIn(request, provider, await identityFromCode(request, provider, body.code, body.redirect_uri, body.code_verifier))
  }

  const codeFlow = async (slot: Slot, request: FastifyRequest, reply: FastifyReply) => {
    const provider = app.config.socialProviders.find((p) => p.slot === slot)
    if (!provider) throw ValidationFailed({ provider: [`Unknown or unconfigured provider "${slot}".`] })
    const query = request.query as CallbackQuery
    const states = loginStatesRepository(app.db)
    if (query.code === undefined && query.error === undefined && query.state === undefined) {
      const next = query.next === undefined ? null : allowedNext(app.config, query.next)
      const started = await startCodeFlow(request, provider, `${baseUrl(request)}/auth/${slot}/`)
      await states.save(started.state, slot, { ...started.saved, next_url: next })
      return reply.redirect(started.url.href, 302)
    }
    if (!query.state) throw ValidationFailed({ state: ['This field is required.'] })
    if (query.code === undefined && query.error === undefined) throw ValidationFailed({ code: ['This field is required.'] })
    const saved = await states.take(query.state, slot)
    if (!saved) throw ValidationFailed({ state: ['Unknown, expired or already used sign-in; start again.'] })
    try {
      const identity = await finishCodeFlow(request, provider, saved, request.url.slice(request.url.indexOf('?')))
      const { userId, created, token } = await signIn(request, provider, identity)
      if (saved.next_url) return reply.redirect(withFragment(saved.next_url, { auth_token: token }), 302)
      return { auth_token: token, id: userId, created }
    } catch (error) {
      // A browser sent on to the web app learns the outcome there, not on a page of JSON.
      if (!saved.next_url || !(error instanceof ApiError)) throw error
      const code = query.error ?? (error.statusCode === 502 ? 'temporarily_unavailable' : 'access_denied')
      return reply.redirect(withFragment(saved.next_url, { error: code }), 302)
    }
  }

  for (const slot of SLOTS) {
    app.get(`/auth/${slot}/`, {
      schema: {
        summary: `Sign in through the provider in slot ${slot}: without code and state it starts (302 to the provider); the provider calls back with them`,
        querystring: CallbackQuery,
        response: { 200: CodeSignedIn, 302: Redirect, ...errors },
      },
      config: {
        access: 'anyone',
        resource: resource(`Social Sign-In (${slot})`, 'Sign in through an OpenID Connect provider in the browser.'),
      },
      handler: (request, reply) => codeFlow(slot, request, reply),
    })
  }

  app.post('/auth/social_auth/', {
    schema: {
      summary: 'Sign in with an access token from a provider; answers the token and the user',
      body: AccessTokenBody,
      response: { 200: SocialSignedIn, ...errors },
    },
    config: { access: 'anyone', resource: resource('Social Auth', 'Sign in with an access token issued by a social provider.') },
    handler: async (request) => {
      const provider = findProvider(app.config, request.body.provider)
      const { userId, created, token } = await signIn(
        request,
        provider,
        await identityFromAccessToken(request, provider, request.body.access_token),
      )
      return { ...(await loadMe(viewContextOf(app, request), userId)), auth_token: token, created }
    },
  })

  app.post('/auth-yeti/', {
    schema: {
      summary: 'Sign in with an access token from a provider (older clients); answers the token and the user id',
      body: AccessTokenBody,
      response: { 200: YetiSignedIn, ...errors },
    },
    config: {
      access: 'anyone',
      resource: resource('Auth Yeti', 'Sign in with an access token issued by a social provider (older clients).'),
    },
    handler: async (request) => {
      const provider = findProvider(app.config, request.body.provider)
      const { userId, token } = await signIn(request, provider, await identityFromAccessToken(request, provider, request.body.access_token))
      return { auth_token: token, id: userId }
    },
  })

  app.post('/auth/token-only-social-auth/', {
    schema: {
      summary: 'Sign in with an access token or an authorization code from a provider; answers the token only',
      body: TokenOrCodeBody,
      response: { 200: TokenOnly, ...errors },
    },
    config: {
      access: 'anyone',
      resource: resource('Token Only Social Auth', 'Sign in through a social provider and receive only a sign-in token.'),
    },
    handler: async (request) => ({ auth_token: (await signInFromBody(request, request.body)).token }),
  })

  app.post('/auth/session-social-auth/', {
    schema: {
      summary: 'Sign in with an access token or an authorization code from a provider; answers the user and a token (no server session)',
      body: TokenOrCodeBody,
      response: { 200: SessionSignedIn, ...errors },
    },
    config: {
      access: 'anyone',
      resource: resource('Session Social Auth', 'Sign in through a social provider; the service is token-based and keeps no sessions.'),
    },
    handler: async (request) => {
      const { userId, token } = await signInFromBody(request, request.body)
      return { ...(await loadMe(viewContextOf(app, request), userId)), auth_token: token }
    },
  })
}
