import { createServer, type IncomingMessage } from 'node:http'
import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'

export interface FcmMessage {
  token: string
  data: Record<string, string>
  notification?: { title?: string; body?: string }
}

/**
 * A local stand-in for Google's OAuth token endpoint and the FCM HTTP v1 API: it checks the service account's
 * RS256-signed grant against the key it issued, serves access tokens, checks them on messages:send, records what
 * it was sent, answers UNREGISTERED for tokens marked gone and 503 while `failing`.
 */
export async function startFcmStandIn(projectId = 'civic-test') {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const accessTokens = new Set<string>()
  const received: FcmMessage[] = []
  const gone = new Set<string>()
  const state = { failing: false, tokenRequests: 0 }
  let base = ''

  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => resolve(Buffer.concat(chunks).toString()))
    })
  const grantValid = (assertion: string) => {
    const [header, claims, signature] = assertion.split('.')
    if (!signature) return false
    const verified = createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, Buffer.from(signature, 'base64url'))
    const body = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>
    const now = Date.now() / 1000
    return (
      verified &&
      body.iss === 'pusher@civic-test.iam.gserviceaccount.com' &&
      body.aud === `${base}/token` &&
      body.scope === 'https://www.googleapis.com/auth/firebase.messaging' &&
      Number(body.exp) > now
    )
  }

  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a stand-in: a failure shows as the test's failed request
  const server = createServer(async (request, response) => {
    const body = await read(request)
    const answer = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(value))
    }
    if (request.method === 'POST' && request.url === '/token') {
      const form = new URLSearchParams(body)
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || !grantValid(form.get('assertion') ?? ''))
        return answer(400, { error: 'invalid_grant' })
      state.tokenRequests++
      const token = `ya29.${randomBytes(24).toString('base64url')}`
      accessTokens.add(token)
      return answer(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' })
    }
    if (request.method === 'POST' && request.url === `/v1/projects/${projectId}/messages:send`) {
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
      if (!bearer || !accessTokens.has(bearer)) return answer(401, { error: { code: 401, status: 'UNAUTHENTICATED' } })
      if (state.failing) return answer(503, { error: { code: 503, status: 'UNAVAILABLE' } })
      const { message } = JSON.parse(body) as { message: FcmMessage }
      if (gone.has(message.token))
        return answer(404, {
          error: {
            code: 404,
            status: 'NOT_FOUND',
            details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
          },
        })
      received.push(message)
      return answer(200, { name: `projects/${projectId}/messages/${randomBytes(8).toString('hex')}` })
    }
    answer(404, { error: { code: 404, status: 'NOT_FOUND' } })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    endpoint: base,
    received,
    gone,
    state,
    /** The service-account key file's contents, pointing at this stand-in. */
    serviceAccount: {
      type: 'service_account',
      project_id: projectId,
      client_email: 'pusher@civic-test.iam.gserviceaccount.com',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      token_uri: `${base}/token`,
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
