import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** What the service must remember between the redirect to the provider and the callback. */
export interface OAuthTransaction {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The local URL to land on after sign-in (already through the open-redirect guard). */
  returnUrl: string;
  /** The redirect_uri sent to the provider; the token request must repeat it exactly. */
  redirectUri: string;
  /** ms since the epoch. */
  expiresAt: number;
}

export const OAUTH_TRANSACTION_COOKIE = 'oauth-transaction';
/** spec is silent: ten minutes to get through the provider's login. */
export const OAUTH_TRANSACTION_LIFETIME_MS = 10 * 60_000;

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_COOKIE = 4096;

/**
 * Seals and opens the transaction cookie: AES-256-GCM with a key derived from JwtKey by HKDF-SHA256 under its
 * own info label (the JWT key itself never encrypts anything), the cookie name as additional data. A cookie
 * that was changed, cut, made with another key or has expired opens to null.
 */
export class OAuthTransactionSealer {
  private readonly key: Buffer;

  constructor(jwtKey: string) {
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(jwtKey, 'utf8'), Buffer.alloc(0), 'oauth-transaction-cookie v1', 32),
    );
  }

  seal(tx: OAuthTransaction): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(OAUTH_TRANSACTION_COOKIE));
    const body = Buffer.concat([
      cipher.update(JSON.stringify({ v: VERSION, ...tx }), 'utf8'),
      cipher.final(),
    ]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  open(sealed: unknown, now: number): OAuthTransaction | null {
    if (typeof sealed !== 'string' || sealed.length > MAX_COOKIE || !/^[\w-]+$/.test(sealed)) return null;
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(OAUTH_TRANSACTION_COOKIE));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
      const parsed = JSON.parse(plain) as Partial<OAuthTransaction> & { v?: unknown };
      const strings = [parsed.state, parsed.nonce, parsed.codeVerifier, parsed.returnUrl, parsed.redirectUri];
      if (parsed.v !== VERSION || strings.some((s) => typeof s !== 'string')) return null;
      if (typeof parsed.expiresAt !== 'number' || parsed.expiresAt <= now) return null;
      const { v: _version, ...tx } = parsed;
      return tx as OAuthTransaction;
    } catch {
      return null;
    }
  }
}

/** What openid-client's Passport strategy keeps in `req.session[sessionKey]` between redirect and callback. */
export interface StrategyState {
  code_verifier: string;
  state?: string;
  nonce?: string;
  max_age?: number;
}

/** The strategy's state as the transaction holds it (the callback: read from the cookie). */
export function strategyStateOf(tx: OAuthTransaction | null): StrategyState | undefined {
  return tx ? { code_verifier: tx.codeVerifier, state: tx.state, nonce: tx.nonce } : undefined;
}

/** The transaction the strategy's state completes (the start: written into the cookie). */
export function transactionWith(
  pending: Omit<OAuthTransaction, 'state' | 'nonce' | 'codeVerifier'>,
  state: StrategyState,
): OAuthTransaction {
  // OidcStrategy asks for a state and a nonce on every authorization request.
  if (typeof state.state !== 'string' || typeof state.nonce !== 'string')
    throw new Error('The authorization request carried no state or nonce.');
  return { ...pending, state: state.state, nonce: state.nonce, codeVerifier: state.code_verifier };
}

/**
 * The `req.session` of the two OAuth routes, for openid-client's Passport strategy: one property, `key`,
 * whose value is the transaction's strategy state. Reading it gives what the sealed cookie holds (`read`);
 * the strategy's one assignment, made before it redirects, hands the state to `write`, which seals it into
 * the cookie of that redirect; its `delete` after reading forgets it (the callback clears the cookie
 * anyway). Nothing is stored on the node: Login and callback may land on different ones.
 */
export function transactionSession(
  key: string,
  read: () => StrategyState | undefined,
  write: (state: StrategyState) => void,
): Record<string, unknown> {
  const session: Record<string, unknown> = {};
  Object.defineProperty(session, key, {
    get: read,
    set: (state: StrategyState) => write(state),
    enumerable: true,
    configurable: true,
  });
  return session;
}
