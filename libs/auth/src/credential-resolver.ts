import type { Request, Response } from 'express';
import type { Actor } from '@app/common';

export interface ResolveOptions {
  /** Refresh the cookie of a cookie-authenticated request (default true; false on the Invoke routes). */
  maintainCookie?: boolean;
}

/** Turns the request's credential into an Actor, or throws a 401 problem. */
export abstract class CredentialResolver {
  abstract resolve(request: Request, response: Response, options?: ResolveOptions): Promise<Actor>;
}
