import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { api, unwrap } from './client';
import type { SignInOptions } from './queries';

/**
 * The user name as the service keys it: trimmed, NFKC, lower case (libs/identity normalizeUserName).
 * The WirePasswordHash is taken over this form, so a name typed in another letter case hashes the same.
 */
export function normalizeUserName(userName: string): string {
  return userName.trim().normalize('NFKC').toLowerCase();
}

/**
 * spec: Password transport hardening 1 — lower-case hex SHA-256 of password + the normalised user name.
 * A small audited library rather than crypto.subtle, which browsers withhold on plain-HTTP hosts.
 */
export function wirePasswordHash(password: string, userName: string): string {
  return bytesToHex(sha256(utf8ToBytes(password + normalizeUserName(userName))));
}

/** Why a password cannot be sent: RSA transport is on and this browser cannot encrypt. Never plaintext. */
export class EncryptionUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncryptionUnavailable';
  }
}

/** WebCrypto exists only in a secure context: HTTPS, or localhost. */
export function canEncrypt(): boolean {
  return globalThis.isSecureContext === true && globalThis.crypto?.subtle !== undefined;
}

export const ENCRYPTION_NEEDS_HTTPS =
  'This service encrypts passwords before they leave the browser, and browsers offer that encryption only on HTTPS (or on localhost). Open the service over HTTPS to sign in; this page will not send your password unencrypted.';

function base64(bytes: ArrayBuffer): string {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s);
}

function spki(pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  const raw = atob(body);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

let publicKey: Promise<CryptoKey> | null = null;

/** The service's RSA public key (PasswordPublicKey), imported once for RSA-OAEP with SHA-256. */
function servicePublicKey(): Promise<CryptoKey> {
  publicKey ??= unwrap(api.GET('/api/Authentication/PasswordPublicKey'))
    .then(({ data }) =>
      crypto.subtle.importKey('spki', spki(data.publicKey), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, [
        'encrypt',
      ]),
    )
    .catch((err: unknown) => {
      publicKey = null;
      throw err;
    });
  return publicKey;
}

/**
 * The service's answer per normalised user name, for the life of the page: a second attempt (a mistyped
 * password) costs one rate-limited request, not two. A failed request is not kept.
 */
const wireHashAnswers = new Map<string, Promise<boolean>>();

function wireHashFor(userName: string): Promise<boolean> {
  const key = normalizeUserName(userName);
  let answer = wireHashAnswers.get(key);
  if (!answer) {
    answer = unwrap(api.POST('/api/Authentication/WirePasswordHash', { body: { userName } })).then(
      ({ data }) => data.wirePasswordHash,
    );
    answer.catch(() => wireHashAnswers.delete(key));
    wireHashAnswers.set(key, answer);
  }
  return answer;
}

/** How this user's password fields go on the wire. */
export interface PasswordTransport {
  userName: string;
  wireHash: boolean;
  key: CryptoKey | null;
}

/**
 * Asks the service whether the user's passwords travel as a WirePasswordHash (it answers the same for an
 * unknown name as for a flagged one) and, with RSA transport on, fetches the key. Throws
 * EncryptionUnavailable when RSA transport is on and this browser cannot encrypt.
 */
export async function passwordTransport(
  options: SignInOptions,
  userName: string,
): Promise<PasswordTransport> {
  if (options.passwordEncryption && !canEncrypt()) throw new EncryptionUnavailable(ENCRYPTION_NEEDS_HTTPS);
  const [wireHash, key] = await Promise.all([
    wireHashFor(userName),
    options.passwordEncryption ? servicePublicKey() : Promise.resolve(null),
  ]);
  return { userName, wireHash, key };
}

/** One password field as the service must receive it: hashed (WirePasswordHash), then encrypted (RSA). */
export async function onTheWire(transport: PasswordTransport, password: string): Promise<string> {
  const value = transport.wireHash ? wirePasswordHash(password, transport.userName) : password;
  if (!transport.key) return value;
  try {
    return base64(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, transport.key, utf8ToBytes(value)));
  } catch {
    throw new EncryptionUnavailable(
      "This password is too long to be encrypted with the service's key. Choose a shorter one.",
    );
  }
}
