import type { FastifyRequest } from 'fastify'
import * as client from 'openid-client'
import type { Config, SocialProviderConfig } from '../../../config.ts'
import { ValidationFailed } from '../../../core/errors.ts'
import { identityFromClaims, type SocialIdentity } from './social.identity.ts'
import { askProvider, configurationFor, SCOPE } from './social.providers.ts'
import type { LoginState } from './login-states.repository.ts'

const INVALID_TOKEN = { access_token: ['Invalid or expired access token.'] }
const INVALID_CODE = { code: ['Invalid, expired or already used authorization code.'] }

/** The provider's authorization URL for a new code-flow sign-in, and what its callback will need. */
export async function startCodeFlow(request: FastifyRequest, provider: SocialProviderConfig, redirectUri: string) {
  const configuration = await configurationFor(request, provider)
  const state = client.randomState()
  const saved = { code_verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce(), redirect_uri: redirectUri }
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri,
    scope: SCOPE,
    state,
    nonce: saved.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(saved.code_verifier),
    code_challenge_method: 'S256',
  })
  return { url, state, saved }
}

/** The provider's callback: the code is exchanged with the saved verifier, and the ID token must carry the saved nonce. */
export async function finishCodeFlow(
  request: FastifyRequest,
  provider: SocialProviderConfig,
  saved: LoginState,
  search: string,
): Promise<SocialIdentity> {
  const params = new URLSearchParams(search)
  if (params.has('error')) throw ValidationFailed({ non_field_errors: [`The provider did not sign you in (${params.get('error')}).`] })
  const configuration = await configurationFor(request, provider)
  // The browser brings these, not the provider: a mismatch is a bad request (mix-up defence, RFC 9207).
  const metadata = configuration.serverMetadata()
  if (metadata.authorization_response_iss_parameter_supported && params.get('iss') !== metadata.issuer) {
    throw ValidationFailed({ iss: ['The answer does not come from this provider.'] })
  }
  return askProvider(request, provider, { non_field_errors: ['The provider refused this sign-in; start again.'] }, async () => {
    const callback = new URL(saved.redirect_uri)
    callback.search = search
    const tokens = await client.authorizationCodeGrant(configuration, callback, {
      pkceCodeVerifier: saved.code_verifier,
      expectedState: params.get('state') ?? undefined,
      expectedNonce: saved.nonce,
    })
    return identityOf(configuration, tokens)
  })
}

/** A code the client obtained itself (a mobile app, say), for the redirect_uri it used. */
export async function identityFromCode(
  request: FastifyRequest,
  provider: SocialProviderConfig,
  code: string,
  redirectUri: string,
  codeVerifier?: string,
): Promise<SocialIdentity> {
  const configuration = await configurationFor(request, provider)
  return askProvider(request, provider, INVALID_CODE, async () => {
    const parameters: Record<string, string> = { code, redirect_uri: redirectUri }
    if (codeVerifier) parameters.code_verifier = codeVerifier
    const tokens = await client.genericGrantRequest(configuration, 'authorization_code', parameters)
    return identityOf(configuration, tokens)
  })
}

/** An access token is checked by asking the provider's userinfo endpoint who it belongs to. */
export async function identityFromAccessToken(
  request: FastifyRequest,
  provider: SocialProviderConfig,
  accessToken: string,
): Promise<SocialIdentity> {
  const configuration = await configurationFor(request, provider)
  return askProvider(request, provider, INVALID_TOKEN, async () => {
    if (!configuration.serverMetadata().userinfo_endpoint) throw new Error(`${provider.issuer} has no userinfo endpoint`)
    return identityFromClaims(await client.fetchUserInfo(configuration, accessToken, client.skipSubjectCheck))
  })
}

async function identityOf(
  configuration: client.Configuration,
  tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
): Promise<SocialIdentity> {
  const idToken = tokens.claims()
  if (!configuration.serverMetadata().userinfo_endpoint) {
    if (!idToken) throw new Error('the provider answered neither an ID token nor a userinfo endpoint')
    return identityFromClaims(idToken)
  }
  // Profile claims usually come from userinfo only; it must speak of the ID token's subject.
  const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, idToken?.sub ?? client.skipSubjectCheck)
  return identityFromClaims({ ...idToken, ...userinfo })
}

/**
 * Where the browser goes after a code-flow sign-in: a page of the web app or of a CORS origin, never elsewhere,
 * since the token travels with it. A path alone is taken as a page of the web app.
 */
export function allowedNext(config: Config, next: string): string {
  let url: URL
  try {
    url = new URL(next, config.webAppUrl ?? undefined)
  } catch {
    throw ValidationFailed({ next: ['Enter a valid URL.'] })
  }
  const origins = [config.webAppUrl, ...config.corsOrigins].filter((o): o is string => !!o && o !== '*').map((o) => new URL(o).origin)
  if (!origins.includes(url.origin)) throw ValidationFailed({ next: ['Only pages of the web app may follow a sign-in.'] })
  return url.href
}

/** next with the outcome in its fragment, which browsers never send to a server. */
export function withFragment(next: string, values: Record<string, string>): string {
  const url = new URL(next)
  const existing = url.hash.slice(1)
  url.hash = (existing ? `${existing}&` : '') + new URLSearchParams(values).toString()
  return url.href
}
