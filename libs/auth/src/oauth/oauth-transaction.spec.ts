import { OAUTH_TRANSACTION_LIFETIME_MS, OAuthTransaction, OAuthTransactionSealer } from './oauth-transaction';

const KEY = 'a-jwt-key-of-at-least-thirty-two-characters';
const tx = (now: number): OAuthTransaction => ({
  state: 'state-1',
  nonce: 'nonce-1',
  codeVerifier: 'verifier-1',
  returnUrl: '/grids',
  redirectUri: 'http://127.0.0.1/api/Authentication/OAuth/Callback',
  expiresAt: now + OAUTH_TRANSACTION_LIFETIME_MS,
});

describe('OAuthTransactionSealer', () => {
  const sealer = new OAuthTransactionSealer(KEY);
  const now = 1_700_000_000_000;

  it('opens what it sealed, and the cookie shows none of it', () => {
    const sealed = sealer.seal(tx(now));
    expect(sealed).toMatch(/^[\w-]+$/);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toMatch(/state-1|verifier-1|grids/);
    expect(sealer.open(sealed, now)).toEqual(tx(now));
  });

  it('refuses a changed, cut, foreign, expired or absent cookie', () => {
    const sealed = sealer.seal(tx(now));
    const raw = Buffer.from(sealed, 'base64url');
    raw[20] ^= 1;
    expect(sealer.open(raw.toString('base64url'), now)).toBeNull();
    expect(sealer.open(sealed.slice(0, -4), now)).toBeNull();
    expect(new OAuthTransactionSealer(`${KEY}-other`).open(sealed, now)).toBeNull();
    expect(sealer.open(sealed, now + OAUTH_TRANSACTION_LIFETIME_MS)).toBeNull();
    expect(sealer.open(undefined, now)).toBeNull();
    expect(sealer.open('not base64url!', now)).toBeNull();
    expect(sealer.open('', now)).toBeNull();
  });
});
