import { setTimeout as delay } from 'node:timers/promises'
import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { baseUrl } from '../../http/urls.ts'
import { confirmEmailMail, passwordResetMail, signInLinkMail } from '../../mail/templates.ts'
import { accountsRepository } from './accounts.repository.ts'
import { CODE_LIFETIME, codeStore } from './codes.repository.ts'
import { signingKey } from './secrets.ts'

interface Recipient {
  id: number
  email: string
}

type LinkPurpose = 'confirm_email' | 'password_reset' | 'onetime_signin'

const enc = encodeURIComponent

/** The web app's routes that read a code from their path. */
const LINKS: Record<LinkPurpose, (base: string, code: string, email: string, redirect: string) => string> = {
  confirm_email: (base, code, email) => `${base}/confirm-email/${enc(code)}/${enc(email)}`,
  password_reset: (base, code, email) => `${base}/password-reset/${enc(code)}/${enc(email)}`,
  onetime_signin: (base, code, email, redirect) => `${base}/authcode/${enc(code)}/${enc(email)}/${enc(redirect)}`,
}

const MAILS = { confirm_email: confirmEmailMail, password_reset: passwordResetMail, onetime_signin: signInLinkMail }

const warned = new WeakSet<object>()

/** Where links lead: WEB_APP_URL, else PUBLIC_URL, else the address this request came to. */
function webAppUrl(request: FastifyRequest): string {
  const { config } = request.server
  if (config.webAppUrl) return config.webAppUrl
  if (!config.publicUrl && !warned.has(request.server)) {
    warned.add(request.server)
    // The Host header is the client's to choose: a reset link built from it could lead elsewhere.
    request.log.warn('WEB_APP_URL and PUBLIC_URL are not set: e-mail links use the Host header of each request')
  }
  return baseUrl(request)
}

/** A link with a new code in it, mailed to the user; earlier codes of the same purpose stop working. */
async function mailLink(app: App, base: string, purpose: LinkPurpose, user: Recipient, redirect = '/'): Promise<void> {
  const code = await codeStore(app.db, await signingKey(app.db, app.config)).issueLinkCode(user.id, purpose, user.email)
  const link = LINKS[purpose](base, code, user.email, redirect)
  await app.mailer.send({ to: user.email, ...MAILS[purpose](link, CODE_LIFETIME[purpose]) })
}

const pending = new WeakMap<object, Set<Promise<void>>>()

/**
 * Mail sent after the answer: a slow or broken mail server never holds up or fails the request, and the
 * answer takes as long whether or not an account was found. Failures are logged.
 */
function inBackground(app: App, request: FastifyRequest, what: string, task: () => Promise<void>): void {
  let tasks = pending.get(app)
  if (!tasks) pending.set(app, (tasks = new Set()))
  const running: Promise<void> = task()
    .catch((error) => request.log.error({ err: error }, `${what} not sent`))
    .finally(() => tasks.delete(running))
  tasks.add(running)
}

/** Closing the service waits a little for the mails still on their way, not for a mail server that hangs. */
export function waitForMailsOnClose(app: App, patienceMs = 10_000): void {
  app.addHook('onClose', async () => {
    await Promise.race([Promise.all([...(pending.get(app) ?? [])]), delay(patienceMs, undefined, { ref: false })])
  })
}

/** The account with this address, when it may receive mail: not deleted (a deactivated one may come back). */
async function recipientOf(app: App, email: string): Promise<Recipient | null> {
  const user = await accountsRepository(app.db).findByEmail(email)
  return user?.email && !user.is_deleted ? { id: user.id, email: user.email } : null
}

/** Sends the address a link to confirm it, after the answer (register, profile edits). */
export async function sendEmailConfirmation(app: App, request: FastifyRequest, user: Recipient): Promise<void> {
  const base = webAppUrl(request)
  inBackground(app, request, 'confirmation mail', () => mailLink(app, base, 'confirm_email', user))
}

/** Sends the address a link to confirm it, now: a failure reaches the caller. */
export async function mailEmailConfirmation(app: App, request: FastifyRequest, user: Recipient): Promise<void> {
  await mailLink(app, webAppUrl(request), 'confirm_email', user)
}

/** A password reset link, when an active account has this address; nothing tells the caller which. */
export async function requestPasswordReset(app: App, request: FastifyRequest, email: string): Promise<void> {
  const user = await recipientOf(app, email)
  if (!user) return
  const base = webAppUrl(request)
  inBackground(app, request, 'password reset mail', () => mailLink(app, base, 'password_reset', user))
}

/** A sign-in link, when an active account has this address; nothing tells the caller which. */
export async function requestSignInLink(app: App, request: FastifyRequest, email: string, redirect: string): Promise<void> {
  const user = await recipientOf(app, email)
  if (!user) return
  const base = webAppUrl(request)
  inBackground(app, request, 'sign-in link mail', () => mailLink(app, base, 'onetime_signin', user, redirect))
}
