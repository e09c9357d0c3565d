import { createHmac, createSecretKey, hash, KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format, version 1 (see docs/api-keys.md):
 *
 *   key  = base64url( random[32] ‖ userGuid[16] ‖ version[1] ‖ HMAC-SHA256(ApiHmacKey, random ‖ userGuid ‖ version)[32] )
 *
 * 81 bytes → 108 URL-safe characters (A–Z a–z 0–9 - _), no padding. 256 random bits come first, so the first
 * eight characters (the display identifier stored for audit) differ from key to key. The checksum is verified
 * in constant time (ApiKeyService.validate: once per active-key entry, docs/api-keys.md); the key is stored
 * only as SHA-256(key) in hex.
 */
export const API_KEY_VERSION = 1;
const RANDOM = 32;
const GUID = 16;
const MAC = 32;
const BODY = RANDOM + GUID + 1;
const TOTAL = BODY + MAC;
export const API_KEY_LENGTH = Math.ceil((TOTAL * 4) / 3); // 108
export const DISPLAY_IDENTIFIER_LENGTH = 8;
const KEY_SHAPE = new RegExp(`^[A-Za-z0-9_-]{${API_KEY_LENGTH}}$`);

function guidToBytes(guid: string): Buffer {
  const hex = guid.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error('not a GUID');
  return Buffer.from(hex, 'hex');
}

function bytesToGuid(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The checksum secret as a KeyObject, built once by whoever holds the setting (ApiKeyService): a string
 * secret is converted and imported on every HMAC, which the validation of every API-key request pays.
 */
export function checksumKey(hmacKey: string): KeyObject {
  return createSecretKey(Buffer.from(hmacKey, 'utf8'));
}

function mac(hmacKey: string | KeyObject, body: Buffer): Buffer {
  return createHmac('sha256', hmacKey).update(body).digest();
}

/** SHA-256 of the key in hex: what the key list stores and is looked up by (one-shot, no hash object). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export interface NewApiKey {
  key: string;
  displayIdentifier: string;
  hash: string;
}

export function generateApiKey(userGuid: string, hmacKey: string | KeyObject): NewApiKey {
  const body = Buffer.concat([randomBytes(RANDOM), guidToBytes(userGuid), Buffer.from([API_KEY_VERSION])]);
  const key = Buffer.concat([body, mac(hmacKey, body)]).toString('base64url');
  return { key, displayIdentifier: key.slice(0, DISPLAY_IDENTIFIER_LENGTH), hash: hashApiKey(key) };
}

/** A presented key taken apart, before any cryptography: what it claims, and the checksum it carries. */
export interface PresentedApiKey {
  /** random ‖ userGuid ‖ version: what the checksum covers. */
  body: Buffer;
  checksum: Buffer;
  /** The user the key claims to belong to. */
  userGuid: string;
}

/** Whether `key` has a key's shape (its length and alphabet), before it is decoded. */
export function hasApiKeyShape(key: string): boolean {
  return key.length === API_KEY_LENGTH && KEY_SHAPE.test(key);
}

/** The parts of a key of the right shape and version; otherwise null. No secret is used. */
export function readApiKey(key: string): PresentedApiKey | null {
  if (!hasApiKeyShape(key)) return null;
  // 108 characters of the alphabet are 648 bits, exactly 81 bytes: no leftover bits, so this shape is always
  // the one (canonical) encoding of what it decodes to, and no second spelling of a key can pass.
  const raw = Buffer.from(key, 'base64url');
  if (raw.length !== TOTAL) return null;
  const body = raw.subarray(0, BODY);
  if (body[BODY - 1] !== API_KEY_VERSION) return null;
  return { body, checksum: raw.subarray(BODY), userGuid: bytesToGuid(body.subarray(RANDOM, RANDOM + GUID)) };
}

/**
 * Whether the key's checksum was made with `hmacKey` or, during a rotation window, with `previousHmacKey`
 * (ApiHmacKeyPrevious). Both are compared, in constant time each, so the time taken does not tell which
 * secret made the key.
 */
export function checksumMatches(
  key: PresentedApiKey,
  hmacKey: string | KeyObject,
  previousHmacKey?: string | KeyObject,
): boolean {
  const current = timingSafeEqual(key.checksum, mac(hmacKey, key.body));
  const previous =
    previousHmacKey !== undefined && timingSafeEqual(key.checksum, mac(previousHmacKey, key.body));
  return current || previous;
}

/**
 * The user GUID a key claims, when its shape, version and checksum are right; otherwise null: the whole check
 * in one call (the format's tests). The service runs its two halves apart, the checksum once per active key.
 */
export function verifyApiKey(
  key: string,
  hmacKey: string | KeyObject,
  previousHmacKey?: string | KeyObject,
): { userGuid: string } | null {
  const presented = readApiKey(key);
  return presented && checksumMatches(presented, hmacKey, previousHmacKey)
    ? { userGuid: presented.userGuid }
    : null;
}
