import type { FastifyRequest } from 'fastify'
import * as client from 'openid-client'
import type { Config, SocialProviderConfig } from '../../../config.ts'
import { ApiError, ValidationFailed, type FieldErrors } from '../../../core/errors.ts'

export type Slot = SocialProviderConfig['slot']
export const SLOTS: readonly Slot[] = ['social1', 'social2', 'social3', 'social4']

/** What the service asks every provider for. */
export const SCOPE = 'openid email profile'

const TIMEOUT_SECONDS = 10
/** Providers rarely change endpoints; signing keys are refetched by the client library when they rotate. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000

/** The provider a client names by its configured name (e.g. "facebook") or by its slot, in any case. */
export function findProvider(config: Config, name: string): SocialProviderConfig {
  const wanted = name.trim().toLowerCase()
  const provider = config.socialProviders.find((p) => p.name === wanted || p.slot === wanted)
  if (!provider) throw ValidationFailed({ provider: [`Unknown or unconfigured provider "${name}".`] })
  return provider
}

const discovered = new Map<string, { at: number; configuration: Promise<client.Configuration> }>()

/** The provider's discovered metadata, cached per process: it is derived from configuration only. */
export function providerConfiguration(provider: SocialProviderConfig): Promise<client.Configuration> {
  const key = JSON.stringify([provider.issuer, provider.clientId, provider.clientSecret])
  const cached = discovered.get(key)
  if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.configuration
  const configuration = discover(provider)
  discovered.set(key, { at: Date.now(), configuration })
  // A failed discovery is tried again on the next sign-in rather than remembered.
  configuration.catch(() => {
    if (discovered.get(key)?.configuration === configuration) discovered.delete(key)
  })
  return configuration
}

async function discover(provider: SocialProviderConfig): Promise<client.Configuration> {
  const issuer = new URL(provider.issuer)
  const execute = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : []
  return client.discovery(issuer, provider.clientId, undefined, clientAuthentication(provider.clientSecret), {
    timeout: TIMEOUT_SECONDS,
    execute,
  })
}

/** client_secret_basic, the OpenID default, unless the provider lists methods without it; none without a secret. */
function clientAuthentication(secret: string): client.ClientAuth {
  if (!secret) return client.None()
  const basic = client.ClientSecretBasic(secret)
  const post = client.ClientSecretPost(secret)
  return (as, metadata, body, headers) => {
    const methods = as.token_endpoint_auth_methods_supported
    const usePost = methods !== undefined && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
    return (usePost ? post : basic)(as, metadata, body, headers)
  }
}

/** The provider's configuration for a request: any failure to discover it is the provider's (502). */
export function configurationFor(request: FastifyRequest, provider: SocialProviderConfig): Promise<client.Configuration> {
  return askProvider(request, provider, null, () => providerConfiguration(provider))
}

/**
 * Runs a call to the provider. A refusal (bad token, used code, mismatched ID token) answers 400 with `refusal`;
 * anything else the provider or the network does answers 502, logged, never 500.
 */
export async function askProvider<T>(
  request: FastifyRequest,
  provider: SocialProviderConfig,
  refusal: FieldErrors | null,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof ApiError) throw error
    if (refusal && refused(error)) throw ValidationFailed(refusal)
    request.log.warn({ err: error, provider: provider.slot }, 'social sign-in provider failed')
    throw new ApiError(502, {
      detail: `The sign-in provider "${provider.name}" could not be reached or answered unexpectedly; try again later.`,
    })
  }
}

function refused(error: unknown): boolean {
  if (error instanceof client.AuthorizationResponseError) return true
  if (error instanceof client.ResponseBodyError) return error.status < 500 && error.error !== 'invalid_client'
  if (error instanceof client.WWWAuthenticateChallengeError) {
    // A challenge naming the client means the service's own credentials are wrong: not the user's fault.
    return error.status < 500 && !error.cause.some((challenge) => challenge.parameters.error === 'invalid_client')
  }
  if (error instanceof client.ClientError) {
    switch (error.code) {
      case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED':
      case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
      case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED':
        return true
      case 'OAUTH_RESPONSE_IS_NOT_CONFORM': {
        const status = (error.cause as { status?: number } | undefined)?.status ?? 500
        return status >= 400 && status < 500 && status !== 429
      }
      default:
        return false
    }
  }
  return false
}
