import { ApiKeyStrategy } from './api-key.strategy';
import { CredentialCarrier, specCredentialCarriers } from './credential-carriers';
import { BearerJwtStrategy, CookieJwtStrategy } from './session-jwt.strategies';

/**
 * The spec's three carriers in their one order (spec: Credentials and precedence 1): x-api-key, then
 * `Authorization: Bearer`, then the authentication-jwt cookie. AuthModule provides this list as
 * CREDENTIAL_CARRIERS; a new carrier goes into that list at its place.
 */
export const SPEC_CREDENTIAL_CARRIERS: readonly CredentialCarrier[] = Object.freeze(
  specCredentialCarriers({ apiKey: ApiKeyStrategy, bearer: BearerJwtStrategy, cookie: CookieJwtStrategy }),
);
