import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { ApiKeyService } from '@app/api-keys';
import { AuthProblems } from '../auth-problems';
import { API_KEY_STRATEGY } from './credential-carriers';
import type { ResolvedCredential } from './session-jwt.strategies';

/**
 * `x-api-key` (any letter case: Node lower-cases header names), read by passport-headerapikey, checked by
 * the key service against the in-memory active-key set (spec: API keys 3). Every failure is the one Key Not
 * Found answer (spec: API keys 4).
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, API_KEY_STRATEGY) {
  constructor(private readonly keys: ApiKeyService) {
    super({ header: 'x-api-key', prefix: '' }, false);
  }

  validate(apiKey: string): ResolvedCredential {
    try {
      return { actor: this.keys.validate(apiKey) };
    } catch {
      throw AuthProblems.keyNotFound();
    }
  }
}
