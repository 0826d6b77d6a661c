/**
 * Bad input in an imported file: the message is one line naming where (line N, feature N) and what is
 * wrong. The command reports it alone, with exit status 2, and the database is left as it was.
 */
export class ImportError extends Error {
  override name = 'ImportError'
}
