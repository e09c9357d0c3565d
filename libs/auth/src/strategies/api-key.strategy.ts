import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import type { Actor, HttpRequestLike } from '@app/common';
import { ApiKeyValidator } from '../api-key-validator';
import { asError } from './authenticate-with';
import { API_KEY_STRATEGY, apiKeyOf } from './credential-carriers';
import type { ResolvedCredential } from './session-jwt.strategies';

/**
 * `x-api-key` (any letter case: Node lower-cases header names) through the in-memory active-key set
 * (spec: API keys 3). Every failure is the one Key Not Found answer (spec: API keys 4).
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, API_KEY_STRATEGY) {
  constructor(private readonly keys: ApiKeyValidator) {
    super({ header: 'x-api-key', prefix: '' }, false);
  }

  /**
   * passport-headerapikey's authenticate, ending in the same Passport actions (a missing or repeated header
   * fails, a refused key is an error, a good one a success), without its per-request work: it reads the
   * header through lodash, builds a RegExp for the (empty) prefix on every request, and reaches the
   * in-memory, synchronous validation through two asynchronous callbacks. Here the whole check runs in the
   * guard's own turn (docs/performance.md).
   */
  override authenticate(request: HttpRequestLike): void {
    const key = apiKeyOf(request);
    if (!key) {
      this.fail('Missing API Key', 401);
      return;
    }
    let actor: Actor;
    try {
      actor = this.keys.validate(key);
    } catch (err) {
      this.error(asError(err));
      return;
    }
    this.success({ actor } satisfies ResolvedCredential);
  }

  /** The verify callback passport-headerapikey's own authenticate would call (not reached: see above). */
  validate(apiKey: string): ResolvedCredential {
    return { actor: this.keys.validate(apiKey) };
  }
}
