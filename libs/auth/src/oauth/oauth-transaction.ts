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
