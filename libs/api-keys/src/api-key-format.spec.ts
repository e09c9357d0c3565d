import { randomUUID } from 'node:crypto';
import { API_KEY_LENGTH, checksumKey, generateApiKey, hashApiKey, verifyApiKey } from './api-key-format';

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

  it('a key object of the secret (built once by the service) decides exactly as the secret itself', () => {
    const current = checksumKey(SECRET);
    const other = checksumKey(`${SECRET}x`);
    expect(verifyApiKey(k.key, current)).toEqual({ userGuid: user });
    expect(verifyApiKey(k.key, other)).toBeNull();
    expect(verifyApiKey(k.key, other, current)).toEqual({ userGuid: user });
    const made = generateApiKey(user, current);
    expect(verifyApiKey(made.key, SECRET)).toEqual({ userGuid: user });
    // every one-character change of the key made with the key object is refused by both forms
    for (let i = 0; i < made.key.length; i += 5) {
      const changed = made.key.slice(0, i) + (made.key[i] === '_' ? '-' : '_') + made.key.slice(i + 1);
      expect(verifyApiKey(changed, current)).toBeNull();
      expect(verifyApiKey(changed, SECRET)).toBeNull();
    }
  });

  it('the key list hash is SHA-256 of the key text in hex', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
