import { Injectable } from '@nestjs/common';
import passport from 'passport';

/** How one Passport strategy ended for one request. */
export type StrategyOutcome<U> =
  | { kind: 'success'; user: U }
  | { kind: 'fail'; challenge: unknown; status: number | undefined }
  | { kind: 'pass' }
  /** The strategy answered the request itself (a redirect) and called no callback. */
  | { kind: 'answered' };

/** The options of every run without options of its own (the credential guard's, on every request). */
const NO_SESSION = Object.freeze({ session: false });

export interface RunOptions {
  /** The strategy's own authenticate options (passport.authenticate hands them on). */
  strategy?: object;
  /** The strategy may answer by itself (a redirect): `response` is then a Node response to watch. */
  mayRedirect?: boolean;
}

/** Passport hands errors on as they came; Promise rejections and problems want an Error. */
function asError(err: unknown): Error {
  // Any object is handed on as it came: an error of another realm (a driver's, under Jest) is no
  // `instanceof Error` here, and the problem filter still needs its code (a database that cannot answer: 503).
  if (typeof err === 'object' && err !== null) return err as Error;
  return new Error(typeof err === 'string' ? err : 'The strategy failed.');
}

/**
 * This application's own Passport authenticator, holding this application's strategy instances by name.
 * Passport's default instance is process-wide: two applications in one process (the tests, the benchmarks)
 * would otherwise share whichever strategy was built last. `run` is the one adapter between Passport and
 * the callers that decide the answer (the precedence guard, the Negotiate and OpenID Connect sign-ins):
 * `passport.authenticate` with a callback and no session, its ending as a Promise; nothing is written to
 * the response, unless the strategy redirects (OpenID Connect's start): Passport then ends the response
 * itself, calls no callback, and the Promise ends as `answered` when the response has gone.
 */
@Injectable()
export class AppPassport {
  private readonly authenticator = new passport.Authenticator();

  use(name: string, strategy: passport.Strategy): void {
    this.authenticator.use(name, strategy);
  }

  run<U>(name: string, request: object, response: object, options?: RunOptions): Promise<StrategyOutcome<U>> {
    return new Promise((resolve, reject) => {
      // Only for a strategy that may redirect: the credential guard's runs add no listener to each request.
      if (options?.mayRedirect)
        (response as NodeJS.WritableStream).once('finish', () => resolve({ kind: 'answered' }));
      const authenticate = this.authenticator.authenticate(
        name,
        options?.strategy ? { ...options.strategy, session: false } : NO_SESSION,
        (err: unknown, user: U | false | undefined, challenge: unknown, status?: number) => {
          if (err) reject(asError(err));
          else if (user) resolve({ kind: 'success', user });
          else resolve({ kind: 'fail', challenge, status });
        },
      ) as (req: object, res: object, next: (err?: unknown) => void) => void;
      authenticate(request, response, (err?: unknown) =>
        err ? reject(asError(err)) : resolve({ kind: 'pass' }),
      );
    });
  }
}
