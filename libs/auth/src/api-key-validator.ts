import type { Actor } from '@app/common';

/**
 * Validates an x-api-key header value into an Actor, or throws the 401 problem with reason Key Not Found
 * (spec: API keys 4). In memory and synchronous (the active-key set). Implemented by ApiKeyServiceValidator.
 */
export abstract class ApiKeyValidator {
  abstract validate(key: string): Actor;
}
