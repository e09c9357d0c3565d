import {
  OAUTH_TRANSACTION_LIFETIME_MS,
  OAuthTransaction,
  OAuthTransactionSealer,
  type StrategyState,
  strategyStateOf,
  transactionSession,
  transactionWith,
} from './oauth-transaction';

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

describe('transactionSession: the req.session openid-client/passport keeps its state in', () => {
  const now = 1_700_000_000_000;
  const state: StrategyState = { code_verifier: 'verifier-1', state: 'state-1', nonce: 'nonce-1' };

  it("hands the strategy's one assignment to write, as the whole transaction", () => {
    const written: StrategyState[] = [];
    const session = transactionSession(
      'oidc',
      () => undefined,
      (s) => written.push(s),
    );
    session.oidc = state;
    expect(written).toEqual([state]);
    const { state: _s, nonce: _n, codeVerifier: _c, ...pending } = tx(now);
    expect(transactionWith(pending, written[0])).toEqual(tx(now));
    expect(() => transactionWith(pending, { code_verifier: 'v' })).toThrow(/no state or nonce/);
  });

  it('reads the state the cookie held, forgets it on delete, and has no state without a transaction', () => {
    const session = transactionSession(
      'oidc',
      () => strategyStateOf(tx(now)),
      () => undefined,
    );
    expect(session.oidc).toEqual(state);
    delete session.oidc;
    expect(session.oidc).toBeUndefined();
    expect(
      transactionSession(
        'oidc',
        () => strategyStateOf(null),
        () => undefined,
      ).oidc,
    ).toBeUndefined();
  });
});
