import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { ApiKeyValidator } from '../api-key-validator';
import { API_KEY_STRATEGY } from './credential-carriers';
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

  async validate(apiKey: string): Promise<ResolvedCredential> {
    return { actor: await this.keys.validate(apiKey) };
  }
}
