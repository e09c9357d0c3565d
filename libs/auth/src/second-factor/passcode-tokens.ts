import { Inject, Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { SESSION_TOKEN_SETTINGS, type SessionTokenSettings } from '@app/config';
import { Clock } from '@app/runtime';
import { AuthenticationType } from '@app/audit';

/** How long the password step stays valid while the passcode is awaited. */
export const PASSCODE_TOKEN_VALIDITY_MS = 5 * 60_000;
/** The audience of a passcode token: never a session (SessionTokens refuses any token with an audience). */
export const PASSCODE_TOKEN_AUDIENCE = 'second-factor';
const TYP = 'second-factor+jwt';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the password step proved, carried to the passcode step. */
export interface PendingSignIn {
  /** The user's Guid. */
  userGuid: string;
  /** The user name as typed (UserLogin CreatedUser). */
  typedName: string;
  authenticationType: AuthenticationType;
  /** The Argon2 hash the password was verified against; null when no password was proven (Negotiate). */
  verifiedHash: string | null;
  /** A new password's Argon2 hash, applied only once the passcode is accepted. */
  newHash?: string;
  /** The user's LastLoginDate (ms) at the password step, or null: any completed sign-in since voids it. */
  lastLoginAt?: number | null;
  /** The session of a signed-in user changing their password (UserLogout SessionStartedDate). */
  currentSessionStartedAt?: number;
}

/** A verified passcode token: `hashTag` is compared with the user's current hash by `provesHash`. */
export interface PendingClaims {
  userGuid: string;
  typedName: string;
  authenticationType: AuthenticationType;
  /** null for a Negotiate sign-in: no password was proven. */
  hashTag: string | null;
  lastLoginAt: number | null;
  newHash?: string;
  currentSessionStartedAt?: number;
}

/**
 * The passcode token: HS256 with JwtKey like a session token, but with its own `typ` and audience and a
 * 5-minute life; the session resolver refuses it. It carries no secret in clear: the verified hash only as
 * an HMAC tag (so a password changed meanwhile voids it), a new hash only AES-256-GCM encrypted, and the
 * user's LastLoginDate (so a completed sign-in voids it).
 */
@Injectable()
export class PasscodeTokens {
  private readonly key: KeyObject;
  private readonly tagKey: Buffer;
  private readonly sealKey: Buffer;

  constructor(
    @Inject(SESSION_TOKEN_SETTINGS.token) settings: SessionTokenSettings,
    private readonly clock: Clock,
  ) {
    if (!settings.JwtKey) throw new Error('JwtKey is not set');
    this.key = createSecretKey(Buffer.from(settings.JwtKey, 'utf8'));
    // Keys of their own, derived from JwtKey, so no signing key is ever used for another purpose.
    this.tagKey = createHmac('sha256', settings.JwtKey).update('second-factor hash tag').digest();
    this.sealKey = createHmac('sha256', settings.JwtKey).update('second-factor new password').digest();
  }

  issue(pending: PendingSignIn): { token: string; expiresAt: number } {
    const now = this.clock.now();
    const exp = Math.floor((now + PASSCODE_TOKEN_VALIDITY_MS) / 1000);
    const payload: Record<string, unknown> = {
      sub: pending.userGuid,
      unm: pending.typedName,
      amt: pending.authenticationType,
      pwh: pending.verifiedHash === null ? null : this.tag(pending.verifiedHash),
      lld: pending.lastLoginAt ?? null,
      iat: Math.floor(now / 1000),
      exp,
      ...(pending.newHash !== undefined ? { nph: this.seal(pending.newHash) } : {}),
      ...(pending.currentSessionStartedAt !== undefined ? { css: pending.currentSessionStartedAt } : {}),
    };
    const token = jwt.sign(payload, this.key, {
      algorithm: 'HS256',
      audience: PASSCODE_TOKEN_AUDIENCE,
      header: { alg: 'HS256', typ: TYP },
    });
    return { token, expiresAt: exp * 1000 };
  }

  /** The claims of a well-signed, unexpired passcode token (no clock tolerance); otherwise null. */
  verify(token: string): PendingClaims | null {
    if (token.length > 4096) return null;
    let decoded: jwt.Jwt;
    try {
      decoded = jwt.verify(token, this.key, {
        algorithms: ['HS256'],
        audience: PASSCODE_TOKEN_AUDIENCE,
        clockTimestamp: Math.floor(this.clock.now() / 1000),
        complete: true,
      });
    } catch {
      return null;
    }
    if (decoded.header.typ !== TYP || typeof decoded.payload !== 'object') return null;
    const c = decoded.payload as Record<string, unknown>;
    if (
      typeof c.sub !== 'string' ||
      !UUID.test(c.sub) ||
      typeof c.unm !== 'string' ||
      // A password sign-in carries its hash tag; a Negotiate one none (no password was proven).
      !(
        (c.amt === AuthenticationType.UserNamePassword && typeof c.pwh === 'string') ||
        (c.amt === AuthenticationType.Negotiate && c.pwh === null && c.nph === undefined)
      ) ||
      (c.lld !== null && !Number.isSafeInteger(c.lld)) ||
      typeof c.exp !== 'number' ||
      (c.nph !== undefined && typeof c.nph !== 'string') ||
      (c.css !== undefined && !Number.isSafeInteger(c.css))
    )
      return null;
    let newHash: string | undefined;
    if (typeof c.nph === 'string') {
      const opened = this.open(c.nph);
      if (opened === null) return null;
      newHash = opened;
    }
    return {
      userGuid: c.sub,
      typedName: c.unm,
      authenticationType: c.amt,
      hashTag: c.pwh,
      lastLoginAt: c.lld as number | null,
      ...(newHash !== undefined ? { newHash } : {}),
      ...(typeof c.css === 'number' ? { currentSessionStartedAt: c.css } : {}),
    };
  }

  /** True when the user's password is still the one the password step verified. */
  provesHash(claims: PendingClaims, currentHash: string): boolean {
    if (claims.hashTag === null) return false;
    const expected = Buffer.from(this.tag(currentHash), 'base64url');
    const actual = Buffer.from(claims.hashTag, 'base64url');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private tag(hash: string): string {
    return createHmac('sha256', this.tagKey).update(hash, 'utf8').digest('base64url');
  }

  private seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  private open(sealed: string): string | null {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < 29) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
