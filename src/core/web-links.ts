import type { FieldErrors } from './errors.ts'

/** Links are shown as anchors: only absolute http(s) URLs, never javascript: or relative ones. */
export function isWebLink(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** An optional link field (a photo, an image): blank means none; anything but an http(s) URL is DRF's error on `field`. */
export function optionalWebLink(value: string | null | undefined, field: string, errors: FieldErrors): string | null | undefined {
  if (value === undefined || value === null) return value
  const text = value.trim()
  if (text === '') return null
  if (isWebLink(text)) return text
  errors[field] = ['Enter a valid URL.']
  return undefined
}
