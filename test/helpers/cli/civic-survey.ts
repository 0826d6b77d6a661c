/**
 * `bin/civic-survey.js` without its loader hook: bundled with the test files (test/helpers/bundle.ts), it is what
 * the tests start as `civic-survey` where the process itself is under test, sparing each start the compiling of
 * the sources (docs/testing.md). Named as the command, since a data directory's lock records the script's name.
 */
import process from 'node:process'
import { main } from '../../../src/cli.ts'

const code = await main(process.argv.slice(2))
// -1: a server is running and exits on its own signal handlers.
if (code >= 0) process.exit(code)
