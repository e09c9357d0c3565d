/** Longest return URL kept; a longer one is replaced by `/` rather than cut (a cut URL is another URL). */
const MAX_RETURN_URL = 2048;

/**
 * The service's open-redirect guard (libs/auth local-return-url.ts), applied again in the page: a return URL
 * is followed only when it is a path of this site; anything else is `/`.
 */
export function localReturnUrl(candidate: string | null): string {
  if (candidate === null || candidate.length === 0 || candidate.length > MAX_RETURN_URL) return '/';
  if (!candidate.startsWith('/') || candidate.startsWith('//')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\\\s\u0000-\u001f\u007f]/.test(candidate)) return '/';
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

export const LOGIN_PATH = '/Account/Login';

/** The Login page, coming back to `returnUrl` afterwards; `ended` says the session ran out. */
export function loginUrl(returnUrl: string, ended = false): string {
  const query = new URLSearchParams({ returnUrl: localReturnUrl(returnUrl) });
  if (ended) query.set('ended', '1');
  return `${LOGIN_PATH}?${query.toString()}`;
}

/** Where the browser is now, as a return URL. */
export function here(): string {
  return `${window.location.pathname}${window.location.search}${window.location.hash}`;
}
