#!/usr/bin/env node
// Runs the TypeScript sources directly, so `npx civic-survey` needs no build step.
import { register } from 'tsx/esm/api'
register()
await import('../src/cli.ts')
