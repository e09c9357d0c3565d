import { isIP } from 'node:net';

/** A Redis Sentinel's address, from RedisSentinels. */
export interface SentinelEndpoint {
  host: string;
  port: number;
}

/**
 * RedisSentinels parsed: `host:port` entries separated by commas (an IPv6 host in brackets, `[::1]:26379`),
 * or null when any entry is not one.
 */
export function parseSentinelEndpoints(value: string): SentinelEndpoint[] | null {
  const out: SentinelEndpoint[] = [];
  for (const entry of value.split(',').map((e) => e.trim())) {
    const m = /^(\[[^\]\s]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(entry);
    if (!m) return null;
    const port = Number(m[2]);
    if (port < 1 || port > 65535) return null;
    out.push({ host: m[1].replace(/^\[(.*)\]$/, '$1'), port });
  }
  return out;
}

/** What Express's 'trust proxy' takes from TrustProxy: nothing, a number of hops, or addresses and ranges. */
export type TrustedProxies = false | number | string[];

/** The Express presets of address ranges that TrustProxy may name. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, an address/prefix (CIDR) or a preset. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/**
 * TrustProxy as Express's 'trust proxy' takes it: False → nothing; True → exactly one hop (not
 * Express's own `true`, which would trust every hop, so the client could choose its address); a whole number →
 * that many hops; otherwise a comma-separated list of addresses, CIDR ranges and presets. null when it is none
 * of these.
 */
export function parseTrustProxy(value: string): TrustedProxies | null {
  const v = value.trim().toLowerCase();
  if (v === 'false') return false;
  if (v === 'true') return 1;
  if (/^\d{1,4}$/.test(v)) return Number(v) === 0 ? false : Number(v);
  const entries = v.split(',').map((e) => e.trim());
  return entries.length && entries.every(isProxyAddress) ? entries : null;
}

/** The forwarded headers whose trusted hops' values the service reads (TrustProxyHeaders). */
export interface TrustedForwardedHeaders {
  proto: boolean;
  host: boolean;
}

const FORWARDED_HEADER_NAMES = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'] as const;

/**
 * TrustProxyHeaders: a comma-separated list of X-Forwarded-For, X-Forwarded-Proto and X-Forwarded-Host (any
 * letter case). X-Forwarded-For must be in it: the trusted hops are counted on it. null when it is not such a list.
 */
export function parseTrustProxyHeaders(value: string): TrustedForwardedHeaders | null {
  const names = value
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (!names.every((n) => (FORWARDED_HEADER_NAMES as readonly string[]).includes(n))) return null;
  if (!names.includes('x-forwarded-for')) return null;
  return { proto: names.includes('x-forwarded-proto'), host: names.includes('x-forwarded-host') };
}
