import { Inject, Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';
import { PASSWORD_SETTINGS, type PasswordSettings } from '@app/config';
import { Problems } from '@app/problems';
import { canonicalWireHash } from './wire-password-hash';

/** Refused before hashing so a huge body cannot buy Argon2 time (sign-in issue). */
export const MAX_PASSWORD_INPUT_LENGTH = 1024;

/**
 * Argon2id hashing. argon2 runs in the libuv thread pool, so hashes run off the event loop on every core.
 */
@Injectable()
export class PasswordHasher {
  private readonly options: argon2.Options & { raw?: false };
  private dummy?: Promise<string>;

  constructor(@Inject(PASSWORD_SETTINGS.token) settings: PasswordSettings) {
    this.options = {
      type: argon2.argon2id,
      memoryCost: settings.Argon2MemoryKiB,
      timeCost: settings.Argon2Iterations,
      parallelism: settings.Argon2Parallelism,
    };
  }

  hash(password: string): Promise<string> {
    return argon2.hash(password, this.options);
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  }

  /** Same cost as a real verification, for unknown users, so timing does not reveal which names exist. */
  async verifyDummy(password: string): Promise<false> {
    this.dummy ??= this.hash('dummy-password-for-timing-equalisation');
    await this.verify(await this.dummy, password);
    return false;
  }
}

/** Password rules for a password being set: length bounds from settings. */
@Injectable()
export class PasswordPolicy {
  constructor(@Inject(PASSWORD_SETTINGS.token) private readonly settings: PasswordSettings) {}

  /** Throws a 400 problem naming the field when the password does not meet the rules. */
  check(field: string, password: string): void {
    const min = this.settings.PasswordMinimumLength;
    const max = Math.min(this.settings.PasswordMaximumLength, MAX_PASSWORD_INPUT_LENGTH);
    if (typeof password !== 'string' || password.length < min || password.length > max) {
      throw Problems.unprocessable(field, `${field} must be ${min} to ${max} characters long.`);
    }
  }

  /**
   * The password an administrator sets, as it is stored: for a WirePasswordHash user the hex SHA-256 the browser
   * computed (wirePasswordHashOf; its strength could only be checked there), else the password itself under the
   * rules. The flag only ever changes together with a password, so the stored hash always has the form sign-in
   * will send.
   */
  storable(password: string, wire: boolean): string {
    if (!wire) {
      this.check('password', password);
      return password;
    }
    const hash = canonicalWireHash(password);
    if (hash === null)
      throw Problems.unprocessable(
        'password',
        'With WirePasswordHash, password must be the hex SHA-256 of the password and the normalised user name.',
      );
    return hash;
  }
}
