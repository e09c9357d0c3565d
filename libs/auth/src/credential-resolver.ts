import type { Request, Response } from 'express';
import type { Actor } from '@app/common';

/** Turns the request's credential into an Actor, or throws a 401 problem. */
export abstract class CredentialResolver {
  abstract resolve(request: Request, response: Response): Promise<Actor>;
}
