import type { Request, Response } from 'express';
import { Actor, Problems } from '@app/common';

/** Turns the request's credential into an Actor, or throws a 401 problem. */
export abstract class CredentialResolver {
  abstract resolve(request: Request, response: Response): Promise<Actor>;
}

/** Until a sign-in scheme exists, nobody is authenticated: deny by default. */
export class DenyAllCredentialResolver extends CredentialResolver {
  async resolve(): Promise<Actor> {
    throw Problems.unauthenticated();
  }
}
