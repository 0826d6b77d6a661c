/**
 * The script a test starts as `civic-survey`: the bundled entry (./civic-survey.ts) when the suite runs from
 * bundles (test/run.ts names it in CIVIC_TEST_CLI), else the shipped `bin/civic-survey.js`.
 */
export const CLI_SCRIPT = process.env.CIVIC_TEST_CLI || 'bin/civic-survey.js'

/** The shipped command itself, for the tests about what a person runs. */
export const SHIPPED_CLI_SCRIPT = 'bin/civic-survey.js'
