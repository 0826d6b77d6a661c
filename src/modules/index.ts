import type { App } from '../http/app-type.ts'
import { areaRoutes } from './areas/areas.routes.ts'
import { echoRoutes } from './auth/echo.routes.ts'
import { censusRoutes } from './census/census.routes.ts'
import { choiceRoutes } from './choices/choices.routes.ts'
import { questionRoutes } from './questions/questions.routes.ts'
import { rootRoutes } from './root/root.routes.ts'
import { staticRoutes } from './static/static.routes.ts'
import { tagRoutes } from './tags/tags.routes.ts'
import { userRoutes } from './users/users.routes.ts'
import { userGeoRoutes } from './user-geos/user-geos.routes.ts'

export function registerModules(app: App): void {
  rootRoutes(app)
  echoRoutes(app)
  staticRoutes(app)
  areaRoutes(app)
  userRoutes(app)
  tagRoutes(app)
  questionRoutes(app)
  choiceRoutes(app)
  censusRoutes(app)
  userGeoRoutes(app)
}
