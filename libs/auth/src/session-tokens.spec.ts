import jwt from 'jsonwebtoken';
import { loadSettings } from '@app/config';
import { ManualClock } from '@app/runtime';
import { createSecretKey } from 'node:crypto';
import { AuthenticationType } from '@app/audit';
import { PasscodeTokens } from './second-factor/passcode-tokens';
import { SessionTokens, TOKEN_VALIDITY_MS } from './session-tokens';

const KEY = 'unit-test-jwt-key-0123456789abcdefghijklmnop';
const GUID = '3f0c2b1e-6a4d-4c2b-9e1f-0a1b2c3d4e5f';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

function setUp(env: Record<string, string> = {}) {
  const clock = new ManualClock(T0);
  const settings = loadSettings({ JwtKey: KEY, ApiHmacKey: KEY, ...env });
  return { clock, tokens: new SessionTokens(settings, clock) };
}

describe('SessionTokens', () => {
  it('issues a 15-minute HS256 token carrying the session start', () => {
    const { tokens } = setUp();
    const issued = tokens.issue(GUID, T0);
    expect(issued.expiresAt - T0).toBe(TOKEN_VALIDITY_MS);
    expect(jwt.decode(issued.token, { complete: true })?.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(tokens.verify(issued.token)).toEqual({ sub: GUID, sst: T0, iat: T0 / 1000, exp: T0 / 1000 + 900 });
  });

  it('refuses a well-signed token that has an audience, even with every session claim', () => {
    const { tokens } = setUp();
    const key = createSecretKey(Buffer.from(KEY, 'utf8'));
    const claims = { sub: GUID, sst: T0, iat: T0 / 1000, exp: T0 / 1000 + 900 };
    expect(tokens.verify(jwt.sign(claims, key, { algorithm: 'HS256' }))).not.toBeNull();
    const withAudience = jwt.sign(claims, key, { algorithm: 'HS256', audience: 'second-factor' });
    expect(tokens.verify(withAudience)).toBeNull();
  });

  it('refuses a passcode token (second factor pending)', () => {
    const { tokens, clock } = setUp();
    const pending = new PasscodeTokens(loadSettings({ JwtKey: KEY, ApiHmacKey: KEY }), clock).issue({
      userGuid: GUID,
      typedName: 'someone',
      authenticationType: AuthenticationType.UserNamePassword,
      verifiedHash: '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaA',
    });
    expect(tokens.verify(pending.token)).toBeNull();
  });

  it('tolerates 30 seconds of clock difference and no more', () => {
    const { tokens, clock } = setUp();
    const issued = tokens.issue(GUID, T0);
    clock.set(issued.expiresAt + 29_999);
    expect(tokens.verify(issued.token)).not.toBeNull();
    clock.set(issued.expiresAt + 30_000);
    expect(tokens.verify(issued.token)).toBeNull();
  });

  it('refuses a session start too far in the future', () => {
    const { tokens, clock } = setUp();
    const ahead = tokens.issue(GUID, T0 + 31_000);
    expect(tokens.verify(ahead.token)).toBeNull();
    clock.advance(1000);
    expect(tokens.verify(tokens.issue(GUID, T0 + 30_000).token)).not.toBeNull();
  });

  it('caps a refreshed token at the absolute lifetime and refuses it after', () => {
    const { tokens, clock } = setUp({
      SessionAbsoluteLifetimeInterval: 'h',
      SessionAbsoluteLifetimeIntervalValue: '1',
    });
    clock.set(T0 + 50 * 60_000);
    const late = tokens.issue(GUID, T0);
    expect(late.expiresAt).toBe(T0 + 3_600_000);
    clock.set(T0 + 3_600_000);
    expect(tokens.verify(late.token)).not.toBeNull();
    clock.advance(1);
    expect(tokens.verify(late.token)).toBeNull();
  });

  it('refuses foreign keys, other algorithms, oversized and malformed tokens without throwing', () => {
    const { tokens } = setUp();
    const claims = { sub: GUID, sst: T0, iat: T0 / 1000, exp: T0 / 1000 + 60 };
    expect(tokens.verify(jwt.sign(claims, KEY, { algorithm: 'HS256' }))).not.toBeNull();
    expect(tokens.verify(jwt.sign(claims, `${KEY}x`, { algorithm: 'HS256' }))).toBeNull();
    expect(tokens.verify(jwt.sign(claims, KEY, { algorithm: 'HS384' }))).toBeNull();
    expect(tokens.verify(jwt.sign({ ...claims, sub: 'not-a-guid' }, KEY, { algorithm: 'HS256' }))).toBeNull();
    expect(tokens.verify(jwt.sign({ ...claims, sst: '1' }, KEY, { algorithm: 'HS256' }))).toBeNull();
    for (const bad of ['', 'a.b.c', '...', 'x'.repeat(5000)]) expect(tokens.verify(bad)).toBeNull();
  });
});
