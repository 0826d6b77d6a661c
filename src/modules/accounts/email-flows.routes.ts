import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { ApiError, fieldError } from '../../core/errors.ts'
import { ErrorBody, FieldErrorsBody } from '../../http/schemas.ts'
import { accountsRepository } from './accounts.repository.ts'
import { viewContextOf } from '../../http/view-context.ts'
import { loadMe } from './accounts.service.ts'
import { mailEmailConfirmation, requestPasswordReset, requestSignInLink, waitForMailsOnClose } from './email-flows.ts'
import { confirmEmail, resetPassword, signInWithCode } from './email-flows.redeem.ts'
import { CodeBody, CodeQuery, Detail, EmailBody, ResetConfirmBody, SignedInByLink, SignInLinkBody } from './email-flows.schemas.ts'
import { signedIn } from '../../http/permissions.ts'

const errors = { 400: FieldErrorsBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody }
const resource = (name: string, description: string) => ({ name, description })

const RESET_SENT = 'If an account has this e-mail address, we have sent it a link to choose a new password.'
const LINK_SENT = 'If an account has this e-mail address, we have sent it a sign-in link.'

/** A path of the web app only: "//host" and "/\host" would lead browsers to another site. */
const isAppPath = (path: string) => /^\/(?![/\\])/.test(path) && !path.includes('\\')

/** request_confirm_email, confirm_email, password-reset, password-reset-confirm, onetime_signin. */
export function emailFlowRoutes(app: App): void {
  waitForMailsOnClose(app)

  app.post('/auth/request_confirm_email/', {
    schema: {
      summary: 'Send your e-mail address a link that confirms it; the body is ignored',
      body: Type.Unknown(),
      response: { 200: Detail, ...errors, 503: ErrorBody },
    },
    config: { access: 'signed-in', resource: resource('Request Confirm Email', 'Send your e-mail address a confirmation link.') },
    handler: async (request) => {
      const user = await accountsRepository(app.db).findById(signedIn(request).id)
      if (!user?.email) throw fieldError('email', 'Your account has no e-mail address: add one to your profile first.')
      if (user.is_email_verified) throw fieldError('email', 'Your e-mail address is already confirmed.')
      try {
        await mailEmailConfirmation(app, request, { id: user.id, email: user.email })
      } catch (error) {
        request.log.error({ err: error }, 'confirmation mail not sent')
        throw new ApiError(503, { detail: 'We could not send the e-mail just now. Please try again in a few minutes.' })
      }
      return { detail: `We have sent a confirmation link to ${user.email}.` }
    },
  })

  const confirmed = { detail: 'Your e-mail address is confirmed. Thank you!' }
  app.post('/auth/confirm_email/', {
    schema: { summary: 'Confirm your e-mail address with the code from the link', body: CodeBody, response: { 200: Detail, ...errors } },
    config: { access: 'anyone', resource: resource('Confirm Email', 'Confirm an e-mail address with the code mailed to it.') },
    handler: async (request) => {
      await confirmEmail(app, request.body.code, request.body.email)
      return confirmed
    },
  })
  app.get('/auth/confirm_email/', {
    schema: {
      summary: 'Confirm your e-mail address: the same, with ?code=&email=',
      querystring: CodeQuery,
      response: { 200: Detail, ...errors },
    },
    config: { access: 'anyone' },
    // A HEAD would use the code up too.
    exposeHeadRoute: false,
    handler: async (request) => {
      await confirmEmail(app, request.query.code, request.query.email.trim().replace(/ /g, '+'))
      return confirmed
    },
  })

  app.post('/auth/password-reset/', {
    schema: {
      summary: 'Mail a link to choose a new password; the answer is the same for any address',
      body: EmailBody,
      response: { 200: Detail, ...errors },
    },
    config: { access: 'anyone', resource: resource('Password Reset', 'Ask for a link to choose a new password.') },
    handler: async (request) => {
      await requestPasswordReset(app, request, request.body.email)
      return { detail: RESET_SENT }
    },
  })

  app.post('/auth/password-reset-confirm/', {
    schema: {
      summary: 'Set a new password with the code from the link; ends every sign-in',
      body: ResetConfirmBody,
      response: { 200: Detail, ...errors },
    },
    config: { access: 'anyone', resource: resource('Password Reset Confirm', 'Choose a new password with the code mailed to you.') },
    handler: async (request) => {
      const { code, email, new_password } = request.body
      await resetPassword(app, code, email, new_password)
      return { detail: 'Your password has been changed, and every earlier sign-in has ended. Sign in with your new password.' }
    },
  })

  app.post('/auth/onetime_signin/', {
    schema: {
      summary: 'Without a code: mail a sign-in link. With the code from the link: sign in, the token is access_token',
      body: SignInLinkBody,
      response: { 200: Type.Union([SignedInByLink, Detail]), ...errors },
    },
    config: { access: 'anyone', resource: resource('Onetime Signin', 'Sign in with a link mailed to you.') },
    handler: async (request) => {
      const { email, code, redirect = '/' } = request.body
      if (code !== undefined) {
        const { userId, token } = await signInWithCode(app, request, code, email)
        return { ...(await loadMe(viewContextOf(app, request), userId)), access_token: token }
      }
      if (!isAppPath(redirect)) throw fieldError('redirect', 'Enter a path of the web app, starting with "/".')
      await requestSignInLink(app, request, email, redirect)
      return { detail: LINK_SENT }
    },
  })
}
