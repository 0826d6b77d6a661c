import { Type, type Static } from 'typebox'
import { Me } from '../accounts.schemas.ts'

const Provider = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'a configured provider name (e.g. "facebook") or its slot, social1 to social4',
})
const AccessToken = Type.String({ minLength: 1, maxLength: 4096, description: 'an access token the provider issued to the user' })

export const AccessTokenBody = Type.Object({ provider: Provider, access_token: AccessToken })
export type AccessTokenBody = Static<typeof AccessTokenBody>

/** An access token, or an authorization code the client obtained itself (with its PKCE verifier if it used one). */
export const TokenOrCodeBody = Type.Object({
  provider: Provider,
  access_token: Type.Optional(AccessToken),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  redirect_uri: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'the redirect_uri the code was issued for' })),
  code_verifier: Type.Optional(Type.String({ minLength: 43, maxLength: 128 })),
})
export type TokenOrCodeBody = Static<typeof TokenOrCodeBody>

export const CallbackQuery = Type.Object({
  next: Type.Optional(
    Type.String({ maxLength: 2000, description: 'where to send the browser afterwards, with #auth_token=...; a page of the web app' }),
  ),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
})
export type CallbackQuery = Static<typeof CallbackQuery>

const AuthToken = Type.String({ description: 'a sign-in token: send it as Authorization: Token <auth_token>' })
const Created = Type.Boolean({ description: 'true when this sign-in made a new account' })

export const CodeSignedIn = Type.Object({ auth_token: AuthToken, id: Type.Integer(), created: Created })
export const SocialSignedIn = Type.Object({ auth_token: AuthToken, created: Created, ...Me.properties })
export const SessionSignedIn = Type.Object({ ...Me.properties, auth_token: AuthToken })
export const YetiSignedIn = Type.Object({ auth_token: AuthToken, id: Type.Integer() })
export const TokenOnly = Type.Object({ auth_token: AuthToken })
export const Redirect = Type.Null({ description: 'no body: the Location header leads on' })
