import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.ts'

export interface SmsSender {
  send(to: string, text: string): Promise<void>
}

/** Development default: the message goes to the log, where a developer reads the code. */
export function consoleSmsSender(log: FastifyBaseLogger): SmsSender {
  return {
    async send(to, text) {
      log.info({ to, text }, 'SMS (SMS_GATEWAY_URL is not set)')
    },
  }
}

/** Any HTTP gateway taking `POST {to, text}` with a bearer token; a non-2xx answer is a failure. */
export function httpSmsSender(url: string, token: string | null): SmsSender {
  return {
    async send(to, text) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ to, text }),
        signal: AbortSignal.timeout(10_000),
      })
      if (!response.ok) throw new Error(`SMS gateway answered ${response.status}`)
    },
  }
}

export function createSmsSender(config: Config, log: FastifyBaseLogger): SmsSender {
  return config.smsGatewayUrl ? httpSmsSender(config.smsGatewayUrl, config.smsGatewayToken) : consoleSmsSender(log)
}
