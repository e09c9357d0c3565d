/**
 * A short reason for a log line or an audit message: the error's name and message, at most 200 characters.
 * Never its stack, and never a query's parameters (a driver error keeps those in fields of their own).
 */
export function shortReason(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 200);
  return 'unknown error';
}
