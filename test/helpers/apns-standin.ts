import { execFileSync } from 'node:child_process'
import { generateKeyPairSync, randomUUID, verify } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

export interface ApnsPush {
  token: string
  topic: string
  pushType: string
  payload: { aps: { alert: { body: string } }; url?: string }
}

/**
 * A local stand-in for APNs: HTTP/2 over TLS (a certificate made for the test with openssl), checking the ES256
 * provider token against the key it issued, its key id and team id, and the topic; recording each push, answering
 * 410 Unregistered for tokens marked gone and 503 while `failing`.
 */
export async function startApnsStandIn(options = { keyId: 'KEY1234567', teamId: 'TEAM123456', topic: 'me.civic.app' }) {
  const folder = mkdtempSync(path.join(tmpdir(), 'apns-standin-'))
  const keyFile = path.join(folder, 'tls-key.pem')
  const certFile = path.join(folder, 'tls-cert.pem')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  )
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const received: ApnsPush[] = []
  const gone = new Set<string>()
  const state = { failing: false }

  const tokenValid = (authorization: string | undefined) => {
    const [header, claims, signature] = /^bearer (.+)$/.exec(authorization ?? '')?.[1].split('.') ?? []
    if (!signature) return false
    const ok = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    )
    const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>
    const body = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>
    return ok && head.alg === 'ES256' && head.kid === options.keyId && body.iss === options.teamId
  }

  const server = http2.createSecureServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) })
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () => {
      const answer = (status: number, reason?: string) => {
        stream.respond({ ':status': status, 'apns-id': randomUUID(), ...(reason ? { 'content-type': 'application/json' } : {}) })
        stream.end(reason ? JSON.stringify({ reason }) : undefined)
      }
      const token = /^\/3\/device\/([0-9a-f]+)$/.exec(String(headers[':path']))?.[1]
      if (headers[':method'] !== 'POST' || !token) return answer(404, 'BadPath')
      if (!tokenValid(headers.authorization as string | undefined)) return answer(403, 'InvalidProviderToken')
      if (headers['apns-topic'] !== options.topic) return answer(400, 'DeviceTokenNotForTopic')
      if (state.failing) return answer(503, 'ServiceUnavailable')
      if (gone.has(token)) return answer(410, 'Unregistered')
      received.push({
        token,
        topic: String(headers['apns-topic']),
        pushType: String(headers['apns-push-type']),
        payload: JSON.parse(Buffer.concat(chunks).toString()),
      })
      answer(200)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile: certFile,
    folder,
    signingKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    ...options,
    received,
    gone,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Sessions the service keeps open would hold close() until they end.
        setTimeout(resolve, 500).unref()
      }),
  }
}
