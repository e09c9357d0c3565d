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
 * Runs ONE Passport strategy instance on a request, exactly as passport.authenticate runs a strategy (a
 * per-request `Object.create` of it, given success / fail / error / pass / redirect actions), with no session
 * and no response written: the caller (a guard or a controller) decides the answer. A strategy's error (a
 * problem thrown by its validate) rejects.
 *
 * The instance is the app's own provider, not a name looked up in passport's process-wide registry: two
 * applications in one process (the tests, the benchmarks) would otherwise share whichever strategy was built
 * last. The per-request object matters because a strategy's actions are set on the object it runs on and
 * concurrent requests must not share them. passport.authenticate itself is not called: it also extends every
 * request with its session helpers (login, logout, isAuthenticated…), which this service never uses, and the
 * paired benchmark measured the API-key route a few points slower with it (docs/decisions.md).
 */
export function authenticateWith<U>(
  strategy: Strategy,
  request: object,
  response: object,
): Promise<StrategyOutcome<U>> {
  try {
    return Promise.resolve(authenticateNow<U>(strategy, request, response));
  } catch (err) {
    return Promise.reject(asError(err));
  }
}

/**
 * authenticateWith, without a Promise when the strategy ends in the call itself (the API key: an in-memory
 * check): then its outcome is returned, or its error thrown, at once; a strategy that ends later (a database
 * read, a provider) gives a Promise as before. The guard of every request uses this: each Promise it does
 * not create is a turn of the microtask queue the request does not wait for (docs/performance.md).
 */
export function authenticateNow<U>(
  strategy: Strategy,
  request: object,
  _response: object,
): StrategyOutcome<U> | Promise<StrategyOutcome<U>> {
  let ended: { outcome: StrategyOutcome<U> } | { error: Error } | undefined;
  let later: { resolve: (outcome: StrategyOutcome<U>) => void; reject: (err: Error) => void } | undefined;
  const end = (how: { outcome: StrategyOutcome<U> } | { error: Error }) => {
    if (ended) return; // the first action counts, as with a Promise
    ended = how;
    if (!later) return;
    if ('error' in how) later.reject(how.error);
    else later.resolve(how.outcome);
  };
  const run = Object.create(strategy) as Strategy & Record<string, unknown>;
  run.success = (user: unknown) =>
    end({
      outcome: user
        ? { kind: 'success', user: user as U }
        : { kind: 'fail', challenge: undefined, status: undefined },
    });
  run.fail = (challenge: unknown, status?: number) => end({ outcome: { kind: 'fail', challenge, status } });
  run.error = (err: unknown) => end({ error: asError(err) });
  run.pass = () => end({ outcome: { kind: 'pass' } });
  run.redirect = () => end({ outcome: { kind: 'pass' } });
  try {
    run.authenticate(request as never, {});
  } catch (err) {
    end({ error: asError(err) });
  }
  if (ended) {
    if ('error' in ended) throw ended.error;
    return ended.outcome;
  }
  return new Promise((resolve, reject) => {
    later = { resolve, reject };
  });
}
