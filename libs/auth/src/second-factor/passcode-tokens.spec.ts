import jwt from 'jsonwebtoken';
import { createSecretKey } from 'node:crypto';
import { loadSettings } from '@app/config';
import { ManualClock } from '@app/runtime';
import { AuthenticationType } from '@app/audit';
import { PASSCODE_TOKEN_VALIDITY_MS, PasscodeTokens, PendingSignIn } from './passcode-tokens';

const KEY = 'unit-test-jwt-key-0123456789abcdefghijklmnop';
const GUID = '3f0c2b1e-6a4d-4c2b-9e1f-0a1b2c3d4e5f';
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$b2xkLWhhc2g';
const NEW_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$bmV3LWhhc2g';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

function setUp(key = KEY) {
  const clock = new ManualClock(T0);
  return { clock, tokens: new PasscodeTokens(loadSettings({ JwtKey: key, ApiHmacKey: KEY }), clock) };
}

const pending: PendingSignIn = {
  userGuid: GUID,
  typedName: 'Some.One',
  authenticationType: AuthenticationType.UserNamePassword,
  verifiedHash: HASH,
};

describe('PasscodeTokens', () => {
  it('round-trips the pending sign-in for 5 minutes, and not a second longer', () => {
    const { tokens, clock } = setUp();
    const issued = tokens.issue({
      ...pending,
      newHash: NEW_HASH,
      currentSessionStartedAt: T0 - 1000,
      lastLoginAt: T0 - 5000,
    });
    expect(issued.expiresAt).toBe(T0 + PASSCODE_TOKEN_VALIDITY_MS);
    const claims = tokens.verify(issued.token)!;
    expect(claims).toMatchObject({
      userGuid: GUID,
      typedName: 'Some.One',
      authenticationType: AuthenticationType.UserNamePassword,
      newHash: NEW_HASH,
      currentSessionStartedAt: T0 - 1000,
      lastLoginAt: T0 - 5000,
    });
    expect(tokens.verify(tokens.issue(pending).token)?.lastLoginAt).toBeNull();
    expect(tokens.provesHash(claims, HASH)).toBe(true);
    expect(tokens.provesHash(claims, NEW_HASH)).toBe(false);
    clock.set(issued.expiresAt - 1000);
    expect(tokens.verify(issued.token)).not.toBeNull();
    clock.set(issued.expiresAt);
    expect(tokens.verify(issued.token)).toBeNull();
  });

  it('carries no hash in clear and says what it is in its header and audience', () => {
    const { tokens } = setUp();
    const { token } = tokens.issue({ ...pending, newHash: NEW_HASH });
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header).toEqual({ alg: 'HS256', typ: 'second-factor+jwt' });
    expect(decoded.payload).toMatchObject({ aud: 'second-factor' });
    expect(JSON.stringify(decoded.payload)).not.toMatch(/argon2|b2xkLWhhc2g|bmV3LWhhc2g/);
  });

  it('refuses another key, another audience, a plain session token and a tampered sealed hash', () => {
    const { tokens } = setUp();
    const { token } = tokens.issue({ ...pending, newHash: NEW_HASH });
    expect(setUp('another-jwt-key-0123456789abcdefghijklmnop').tokens.verify(token)).toBeNull();
    const key = createSecretKey(Buffer.from(KEY, 'utf8'));
    const payload = jwt.decode(token) as Record<string, unknown>;
    const resign = (p: Record<string, unknown>, header = { alg: 'HS256', typ: 'second-factor+jwt' }) =>
      jwt.sign(p, key, { algorithm: 'HS256', header } as jwt.SignOptions);
    expect(tokens.verify(resign(payload))).not.toBeNull(); // the re-signing itself is sound
    expect(tokens.verify(resign({ ...payload, aud: 'session' }))).toBeNull();
    expect(tokens.verify(resign(payload, { alg: 'HS256', typ: 'JWT' }))).toBeNull();
    const sealed = payload.nph as string;
    // A character in the middle (the last one may carry padding bits that decoding ignores).
    const flipped = `${sealed.slice(0, 30)}${sealed[30] === 'A' ? 'B' : 'A'}${sealed.slice(31)}`;
    expect(tokens.verify(resign({ ...payload, nph: flipped }))).toBeNull();
  });
});
