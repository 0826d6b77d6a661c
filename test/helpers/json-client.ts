/** A JSON client of a service a test started on a port: status and parsed body, a token when given. */
export function jsonClient(base: string) {
  return async function call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> {
    const headers: Record<string, string> = {}
    if (token) headers.authorization = `Token ${token}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await response.text()
    return { status: response.status, json: text ? JSON.parse(text) : null }
  }
}
