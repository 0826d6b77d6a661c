/** Who a request comes from: set by the edge's authentication, read by every rule that depends on the person. */
export interface Caller {
  id: number
  isStaff: boolean
  /** The token this request came with, so sign-out and password changes know which one it is. */
  tokenId: number
}

/** Who is looking, where only identity and staff status matter (visibility rules, live streams). */
export interface Viewer {
  id: number | null
  isStaff: boolean
}

export const viewerOf = (caller: Caller | null): Viewer => ({ id: caller?.id ?? null, isStaff: caller?.isStaff ?? false })
