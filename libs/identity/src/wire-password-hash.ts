import { createHash } from 'node:crypto';
import { normalizeUserName } from './names';

/**
 * spec: Password transport hardening 1 — for a user with WirePasswordHash the browser sends, instead of the
 * password, the hex SHA-256 of the password followed by the user name; the name is the normalised one
 * (trimmed, NFKC, lower case: normalizeUserName), so typing it in another letter case changes nothing. The
 * console computes the same (apps/console/src/api/password-transport.ts); Argon2 still applies on top.
 */
export const WIRE_PASSWORD_HASH = /^[0-9a-f]{64}$/i;

/** The value a WirePasswordHash user's browser sends for `password` (tests, tools, documentation). */
export function wirePasswordHashOf(password: string, userName: string): string {
  return createHash('sha256')
    .update(password + normalizeUserName(userName.trim()), 'utf8')
    .digest('hex');
}

/** A wire hash as stored and compared: lower-case hex (the browser sends lower case; hex is case-free). */
export function canonicalWireHash(value: string): string | null {
  return WIRE_PASSWORD_HASH.test(value) ? value.toLowerCase() : null;
}
