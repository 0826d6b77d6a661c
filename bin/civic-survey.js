#!/usr/bin/env node
// Runs the TypeScript sources directly, so `npx civic-survey` needs no build step.
import process from 'node:process'
import { register } from 'tsx/esm/api'
register()
const { main } = await import('../src/cli.ts')
const code = await main(process.argv.slice(2))
// -1: a server is running and exits on its own signal handlers.
if (code >= 0) process.exit(code)
