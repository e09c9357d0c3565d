/** The idle warning shows this long before the token runs out (a "Stay signed in" slides it). */
export const IDLE_WARNING_MS = 2 * 60_000;
/** The absolute-lifetime notice shows this long before the session's hard end (nothing extends it). */
export const ABSOLUTE_WARNING_MS = 10 * 60_000;

export type ExpiryNotice =
  | { kind: 'none' }
  | { kind: 'idle'; endsAt: number }
  | { kind: 'absolute'; endsAt: number }
  | { kind: 'ended' };

/**
 * What the signed-in page says about the session's end, all instants on the service's clock (ms):
 * `tokenExpiresAt` from the authentication-expiry cookie (null: no session cookie any more, e.g. a logout
 * in another tab), `absoluteExpiresAt` from the session (spec: absolute session lifetime).
 */
export function expiryNotice(
  now: number,
  tokenExpiresAt: number | null,
  absoluteExpiresAt: number | null,
): ExpiryNotice {
  if (tokenExpiresAt === null || now >= tokenExpiresAt) return { kind: 'ended' };
  const hardEnd = absoluteExpiresAt ?? Number.POSITIVE_INFINITY;
  // Idle first: a token that runs out before the hard end can still be slid.
  if (tokenExpiresAt < hardEnd - 1000 && tokenExpiresAt - now <= IDLE_WARNING_MS)
    return { kind: 'idle', endsAt: tokenExpiresAt };
  if (hardEnd - now <= ABSOLUTE_WARNING_MS) return { kind: 'absolute', endsAt: hardEnd };
  return { kind: 'none' };
}

export const EXPIRY_COOKIE = 'authentication-expiry';

/** The token's expiry from the script-readable authentication-expiry cookie (ISO-8601), or null. */
export function readExpiryCookie(cookies: string): number | null {
  for (const part of cookies.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name !== EXPIRY_COOKIE) continue;
    const at = Date.parse(decodeURIComponent(rest.join('=')));
    return Number.isNaN(at) ? null : at;
  }
  return null;
}

/** "less than a minute" / "about 3 minutes". */
export function roughly(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes < 1 ? 'less than a minute' : `about ${minutes} minute${minutes === 1 ? '' : 's'}`;
}
