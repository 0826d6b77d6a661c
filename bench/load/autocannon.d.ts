/** The part of autocannon's API the load suite uses (the package ships no types). */
declare module 'autocannon' {
  export interface Histogram {
    average: number
    p50: number
    p99: number
    max: number
  }
  export interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  }
  export interface Options {
    url: string
    connections: number
    duration: number
    headers?: Record<string, string>
    method?: string
    body?: string
    requests?: Request[]
    initialContext?: Record<string, unknown>
    idReplacement?: boolean
  }
  export interface Result {
    requests: Histogram & { total: number }
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    duration: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
