/** Longest return URL kept; a longer one is replaced by `/` rather than cut (a cut URL is another URL). */
const MAX_RETURN_URL = 2048;

/**
 * spec: OAuth / OpenID Connect 5 — the open-redirect guard. A return URL is kept only when it is a path of
 * this site: it starts with exactly one `/` (not `//`, which a browser reads as another host), holds no
 * backslash (browsers read `/\host` as `//host`), no control character or whitespace, and resolves against a
 * dummy origin to that same origin. Anything else (absent, absolute, scheme-relative, `javascript:` …) is `/`.
 */
export function localReturnUrl(candidate: unknown): string {
  if (typeof candidate !== 'string') return '/';
  if (candidate.length === 0 || candidate.length > MAX_RETURN_URL) return '/';
  if (!candidate.startsWith('/') || candidate.startsWith('//')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\\\s\u0000-\u001f\u007f]/.test(candidate)) return '/';
  // Percent-encoded slashes or backslashes right after the first `/` are decoded by some servers and proxies.
  if (/^\/(%2f|%5c)/i.test(candidate)) return '/';
  const base = 'http://local.invalid';
  let resolved: URL;
  try {
    resolved = new URL(candidate, base);
  } catch {
    return '/';
  }
  if (resolved.origin !== base) return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
