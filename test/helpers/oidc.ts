import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateKeyPairSync } from 'node:crypto'
import * as client from 'openid-client'
// @ts-expect-error oidc-provider 8 publishes no type declarations
import Provider from 'oidc-provider'

/** The claims a test account gives; sub is its login at the provider. */
export interface TestAccount {
  sub: string
  email?: string
  email_verified?: boolean
  given_name?: string
  family_name?: string
  preferred_username?: string
  name?: string
}

export interface TestProvider {
  issuer: string
  accounts: Map<string, TestAccount>
  /** Plays the browser from an authorization URL: signs in as `sub`, consents, and answers where the provider sends it back. */
  authorize(authorizationUrl: string | URL, sub: string): Promise<URL>
  /** An authorization code for `sub`, issued to `clientId` for `redirectUri`, as a mobile app would obtain it. */
  codeFor(sub: string, clientId: string, redirectUri: string): Promise<{ code: string; codeVerifier: string }>
  /** A user access token for `sub`, obtained through the code flow by the provider's own test client. */
  accessTokenFor(sub: string): Promise<string>
  close(): Promise<void>
}

export interface ProviderClient {
  client_id: string
  client_secret: string
  redirect_uris: string[]
}

const DIRECT = {
  client_id: 'direct-test-client',
  client_secret: 'direct-test-secret-direct-test-secret',
  redirect_uris: ['http://direct.test/callback'],
}

/** A real OpenID Connect provider (oidc-provider) on 127.0.0.1 with its development login and consent pages. */
export async function startTestProvider(clients: ProviderClient[]): Promise<TestProvider> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const accounts = new Map<string, TestAccount>()
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })

  // Its warnings about development-only storage and login pages are expected here.
  const warn = console.warn
  console.warn = () => {}
  let provider
  try {
    provider = new Provider(issuer, {
      clients: [...clients, DIRECT].map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'] })),
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] },
      cookies: { keys: ['oidc-test-cookie-key'], long: { signed: true, sameSite: 'lax' }, short: { signed: true, sameSite: 'lax' } },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name', 'preferred_username'] },
      features: { devInteractions: { enabled: true } },
      ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
      async findAccount(_ctx: unknown, id: string) {
        const account = accounts.get(id)
        return account && { accountId: id, claims: async () => ({ ...account, sub: id }) }
      },
    })
  } finally {
    console.warn = warn
  }
  server.on('request', provider.callback())

  async function authorize(authorizationUrl: string | URL, sub: string): Promise<URL> {
    const cookies = new Map<string, string>()
    let url = new URL(authorizationUrl)
    let body: string | undefined
    for (let hop = 0; hop < 20; hop++) {
      const response = await fetch(url, {
        method: body === undefined ? 'GET' : 'POST',
        body,
        redirect: 'manual',
        headers: {
          cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
      })
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';')
        const at = pair.indexOf('=')
        cookies.set(pair.slice(0, at), pair.slice(at + 1))
      }
      if (response.status >= 300 && response.status < 400) {
        const location = new URL(response.headers.get('location')!, url)
        if (location.origin !== issuer) return location
        url = location
        body = undefined
        continue
      }
      const html = await response.text()
      if (response.status !== 200) throw new Error(`provider answered ${response.status} at ${url}: ${html.slice(0, 500)}`)
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1]
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
      if (!prompt || !action) throw new Error(`no login or consent form at ${url}`)
      url = new URL(action.replace(/&amp;/g, '&'), url)
      body = new URLSearchParams(prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt }).toString()
    }
    throw new Error('too many redirects at the provider')
  }

  const configurations = new Map<string, Promise<client.Configuration>>()
  const configurationOf = (clientId: string, secret: string) => {
    if (!configurations.has(clientId)) {
      configurations.set(
        clientId,
        client.discovery(new URL(issuer), clientId, secret, undefined, { execute: [client.allowInsecureRequests] }),
      )
    }
    return configurations.get(clientId)!
  }

  async function codeFor(sub: string, clientId: string, redirectUri: string) {
    const secret = [...clients, DIRECT].find((c) => c.client_id === clientId)!.client_secret
    const configuration = await configurationOf(clientId, secret)
    const codeVerifier = client.randomPKCECodeVerifier()
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    })
    const back = await authorize(url, sub)
    const code = back.searchParams.get('code')
    if (!code) throw new Error(`no code in ${back}`)
    return { code, codeVerifier }
  }

  async function accessTokenFor(sub: string): Promise<string> {
    const redirectUri = DIRECT.redirect_uris[0]
    const { code, codeVerifier } = await codeFor(sub, DIRECT.client_id, redirectUri)
    const configuration = await configurationOf(DIRECT.client_id, DIRECT.client_secret)
    const tokens = await client.genericGrantRequest(configuration, 'authorization_code', {
      code,
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    })
    return tokens.access_token
  }

  return {
    issuer,
    accounts,
    authorize,
    codeFor,
    accessTokenFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
