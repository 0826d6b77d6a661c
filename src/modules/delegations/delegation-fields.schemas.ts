import { Type } from 'typebox'
import { INT4_MAX } from '../../core/integers.ts'
import { Nullable } from '../../http/schemas.ts'

/** A primary key named in a body (readBody has turned anything else into a 400 before the schema sees it). */
export const PkField = (description: string) => Type.Integer({ minimum: 1, maximum: INT4_MAX, description })
export const TrusteeField = Nullable(PkField('the user who answers for you; null for a block ("do not delegate")'))
