/** Absolute URLs of the API's resources, from the base the request was made on. */
export class UrlBuilder {
  constructor(readonly base: string) {}

  path(path: string): string {
    return this.base + path
  }

  detail(resource: string, id: number): string {
    return `${this.base}/api/${resource}/${id}/`
  }
}
