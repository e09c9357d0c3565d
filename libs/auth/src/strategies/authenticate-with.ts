import passport from 'passport';
import type { Strategy } from 'passport-strategy';

/** Passport hands errors on as they came; Promise rejections and problems want an Error. */
export function asError(err: unknown): Error {
  // Any object is handed on as it came: an error of another realm (a driver's, under Jest) is no
  // `instanceof Error` here, and the problem filter still needs its code (a database that cannot answer: 503).
  if (typeof err === 'object' && err !== null) return err as Error;
  return new Error(typeof err === 'string' ? err : 'The strategy failed.');
}

/** How one Passport strategy ended for one request. */
export type StrategyOutcome<U> =
  | { kind: 'success'; user: U }
  | { kind: 'fail'; challenge: unknown; status: number | undefined }
  | { kind: 'pass' };

/**
 * Runs ONE Passport strategy instance on a request, through passport.authenticate, with no session and no
 * response written: the caller (a guard or a controller) decides the answer. A strategy's error (a problem
 * thrown by its validate) rejects.
 *
 * The instance is the app's own provider, not a name looked up in passport's process-wide registry: two
 * applications in one process (the tests, the benchmarks) would otherwise share whichever strategy was built
 * last. Each request gets its own `Object.create` of it, as passport does for named strategies, because the
 * strategy's success/fail/error are set on the object and must not be shared by concurrent requests.
 */
export function authenticateWith<U>(
  strategy: Strategy,
  request: object,
  response: object,
): Promise<StrategyOutcome<U>> {
  return new Promise((resolve, reject) => {
    const middleware = passport.authenticate(
      Object.create(strategy) as Strategy,
      { session: false },
      (err: unknown, user: unknown, challenge: unknown, status: number | undefined) => {
        if (err) reject(asError(err));
        else if (!user) resolve({ kind: 'fail', challenge, status });
        else resolve({ kind: 'success', user: user as U });
      },
    ) as (req: object, res: object, next: (err?: unknown) => void) => void;
    try {
      middleware(request, response, (err?: unknown) =>
        err ? reject(asError(err)) : resolve({ kind: 'pass' }),
      );
    } catch (err) {
      reject(asError(err));
    }
  });
}
