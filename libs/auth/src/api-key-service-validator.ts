import { Injectable } from '@nestjs/common';
import type { Actor } from '@app/common';
import { ApiKeyService } from '@app/api-keys';
import { ApiKeyValidator } from './api-key-validator';
import { AuthProblems } from './auth-problems';

/** x-api-key through the in-memory API key set (issue 5); every failure is the one Key Not Found answer. */
@Injectable()
export class ApiKeyServiceValidator extends ApiKeyValidator {
  constructor(private readonly keys: ApiKeyService) {
    super();
  }

  validate(key: string): Actor {
    try {
      return this.keys.validate(key);
    } catch {
      throw AuthProblems.keyNotFound();
    }
  }
}
