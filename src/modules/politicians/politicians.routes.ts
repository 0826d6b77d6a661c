import type { App } from '../../http/app-type.ts'

/** Politicians (politician, simple_politicians, simple_politicians_geos) and matching people with them. */
export function politicianRoutes(app: App): void {
  void app
}
