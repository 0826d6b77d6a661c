import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { ApiError, fieldError } from '../../core/errors.ts'
import { ErrorBody, FieldErrorsBody } from '../../http/schemas.ts'
import { Me } from './accounts.schemas.ts'
import { viewContextOf } from '../../http/view-context.ts'
import { loadMe } from './accounts.service.ts'
import { CODE_LIFETIME, CodeRejected, codeStore } from './codes.repository.ts'
import { normalisePhone, PHONE_FORMAT, PHONE_TAKEN } from './phone.ts'
import { phoneRepository } from './phone.repository.ts'
import { signingKey } from './secrets.ts'
import { signedIn } from '../../http/permissions.ts'

/** Field errors, or a detail when the body is not JSON. */
const BadRequest = Type.Union([FieldErrorsBody, ErrorBody])
const errors = { 400: BadRequest, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody }
const Detail = Type.Object({ detail: Type.String() })
const Phone = Type.String({ minLength: 1, maxLength: 40, description: 'international format, for example +44 7700 900123' })

const SendBody = Type.Object({ phone: Phone })
const AddBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 20, description: 'the six digits of the text message' }),
  phone: Type.Optional(Phone),
})

/** verification_sms_send, verification_add, verification_remove. */
export function phoneRoutes(app: App): void {
  const phoneFrom = (raw: string) => {
    const phone = normalisePhone(raw)
    if (!phone) throw fieldError('phone', PHONE_FORMAT)
    return phone
  }

  app.post('/auth/verification_sms_send/', {
    schema: {
      summary: 'Text a six-digit code to a phone number, to verify it',
      body: SendBody,
      response: { 200: Detail, ...errors, 503: ErrorBody },
    },
    config: {
      access: 'signed-in',
      resource: { name: 'Verification Sms Send', description: 'Text a code to your phone number; verification_add checks it.' },
    },
    handler: async (request) => {
      const userId = signedIn(request).id
      const phone = phoneFrom(request.body.phone)
      if (await phoneRepository(app.db).verifiedByAnother(phone, userId)) throw fieldError('phone', PHONE_TAKEN)
      const code = await codeStore(app.db, await signingKey(app.db, app.config)).issueNumericCode(userId, 'phone', phone)
      const minutes = CODE_LIFETIME.phone / 60
      try {
        await app.sms.send(phone, `${code} is your Civic Survey verification code. It expires in ${minutes} minutes.`)
      } catch (error) {
        request.log.error({ err: error }, 'SMS not sent')
        throw new ApiError(503, { detail: 'The text message could not be sent. Try again later.' })
      }
      return { detail: `A code was sent to ${phone}. It expires in ${minutes} minutes.` }
    },
  })

  app.post('/auth/verification_add/', {
    schema: { summary: 'Verify your phone number with the code texted to it', body: AddBody, response: { 200: Me, ...errors } },
    config: {
      access: 'signed-in',
      resource: { name: 'Verification Add', description: 'Check the texted code; your phone number becomes verified.' },
    },
    handler: async (request) => {
      const userId = signedIn(request).id
      const code = request.body.code.trim()
      if (!/^\d{6}$/.test(code)) throw fieldError('code', 'Enter the six-digit code.')
      const repository = phoneRepository(app.db)
      // Checked before the code is tried, so that a mistake in these fields costs no attempt.
      const target = await repository.pendingTarget(userId)
      if (target === undefined) throw fieldError('code', 'No code was sent, or it was already used: ask for a new one.')
      if (request.body.phone !== undefined && phoneFrom(request.body.phone) !== target) {
        throw fieldError('phone', 'The code was sent to another number.')
      }
      if (await repository.verifiedByAnother(target, userId)) throw fieldError('phone', PHONE_TAKEN)
      let verified: string
      try {
        verified = (await codeStore(app.db, await signingKey(app.db, app.config)).consumeNumericCode(userId, 'phone', code)).target
      } catch (error) {
        if (error instanceof CodeRejected) throw fieldError('code', error.message)
        throw error
      }
      await repository.setPhone(userId, verified)
      return loadMe(viewContextOf(app, request), userId)
    },
  })

  for (const method of ['POST', 'DELETE'] as const) {
    app.route({
      method,
      url: '/auth/verification_remove/',
      schema: { summary: 'Remove your phone number and its verification', response: { 200: Me, ...errors } },
      config: { access: 'signed-in', resource: { name: 'Verification Remove', description: 'Forget your phone number.' } },
      handler: async (request) => {
        await phoneRepository(app.db).setPhone(signedIn(request).id, null)
        return loadMe(viewContextOf(app, request), signedIn(request).id)
      },
    })
  }
}
