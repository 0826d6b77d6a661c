import { Type } from 'typebox'
import { Email, Me, Password } from './accounts.schemas.ts'

const Code = Type.String({ minLength: 1, maxLength: 200, description: 'the code from the link in the mail' })

export const Detail = Type.Object({ detail: Type.String() })

export const EmailBody = Type.Object({ email: Email })

export const CodeBody = Type.Object({ code: Code, email: Email })

/** The same, as query parameters; a "+" in an unencoded address arrives as a space. */
export const CodeQuery = Type.Object({ code: Code, email: Type.String({ minLength: 1, maxLength: 254 }) })

export const ResetConfirmBody = Type.Object({ code: Code, email: Email, new_password: Password })

export const SignInLinkBody = Type.Object({
  email: Email,
  code: Type.Optional(Code),
  redirect: Type.Optional(Type.String({ maxLength: 2000, description: 'a path of the web app to open after signing in; "/" by default' })),
})

/** The signed-in user with the token under `access_token`, the name the web app reads for this operation. */
export const SignedInByLink = Type.Object({ ...Me.properties, access_token: Type.String() })
