import type { Request } from 'express';
import type { Actor } from '@app/common';
import { AuthProblems } from './auth-problems';

/**
 * Validates an x-api-key header value into an Actor, or throws the 401 problem with reason Key Not Found
 * (spec: API keys 4). The API-key issue provides the real implementation.
 */
export abstract class ApiKeyValidator {
  abstract validate(key: string, request: Request): Promise<Actor>;
}

/** Until API keys exist, every key is unknown. */
export class KeyNotFoundApiKeyValidator extends ApiKeyValidator {
  async validate(): Promise<Actor> {
    throw AuthProblems.keyNotFound();
  }
}
