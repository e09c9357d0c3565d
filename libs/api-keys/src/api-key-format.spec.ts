import { randomUUID } from 'node:crypto';
import { API_KEY_LENGTH, generateApiKey, hashApiKey, verifyApiKey } from './api-key-format';

const SECRET = 'an-hmac-secret-of-at-least-32-characters!';

describe('API key format', () => {
  const user = randomUUID();
  const k = generateApiKey(user, SECRET);

  it('is URL-safe, of fixed length, and names its user', () => {
    expect(k.key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(k.key).toHaveLength(API_KEY_LENGTH);
    expect(verifyApiKey(k.key, SECRET)).toEqual({ userGuid: user });
    expect(k.hash).toBe(hashApiKey(k.key));
    expect(k.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('display identifiers differ from key to key (no fixed prefix)', () => {
    const ids = new Set(Array.from({ length: 200 }, () => generateApiKey(user, SECRET).displayIdentifier));
    expect(ids.size).toBe(200);
    expect(k.displayIdentifier).toBe(k.key.slice(0, 8));
  });

  it('refuses a changed character anywhere, a truncated or extended key, another secret, and junk', () => {
    for (let i = 0; i < k.key.length; i += 7) {
      const c = k.key[i] === 'A' ? 'B' : 'A';
      expect(verifyApiKey(k.key.slice(0, i) + c + k.key.slice(i + 1), SECRET)).toBeNull();
    }
    expect(verifyApiKey(k.key.slice(0, -1), SECRET)).toBeNull();
    expect(verifyApiKey(`${k.key}A`, SECRET)).toBeNull();
    expect(verifyApiKey(k.key, `${SECRET}x`)).toBeNull();
    for (const junk of ['', ' ', 'x'.repeat(108), '='.repeat(108), `${k.key.slice(0, -2)}==`])
      expect(verifyApiKey(junk, SECRET)).toBeNull();
  });

  it('during a rotation window accepts a key made with the previous secret, and only then', () => {
    const old = generateApiKey(user, SECRET);
    const next = `${SECRET}-rotated`;
    expect(verifyApiKey(old.key, next)).toBeNull();
    expect(verifyApiKey(old.key, next, SECRET)).toEqual({ userGuid: user });
    expect(verifyApiKey(generateApiKey(user, next).key, next, SECRET)).toEqual({ userGuid: user });
    expect(verifyApiKey(old.key, next, `${SECRET}-other`)).toBeNull();
  });
});
