import type { Response } from 'express';
import type { CookieInstruction } from '../session-cookies';

/**
 * THE response helper of the sign-in and session routes (one of the few files allowed to import Express:
 * eslint.config.mjs): writes the cookie instructions a service returned. A later instruction for a cookie
 * replaces one already pending on this response (a cookie request that replaces its session, ChangePassword
 * over a cookie, answers only the new session's cookies, not the refresh the guard set).
 */
export function writeCookies(res: Response, cookies: readonly CookieInstruction[]): void {
  if (cookies.length === 0) return;
  const names = new Set(cookies.map((c) => c.name));
  const pending = res.getHeader('Set-Cookie');
  if (Array.isArray(pending)) {
    const kept = pending.filter((c) => !names.has(c.slice(0, c.indexOf('='))));
    if (kept.length !== pending.length) res.setHeader('Set-Cookie', kept);
  }
  for (const { name, value, options } of cookies) {
    if (value === null) res.clearCookie(name, options);
    else res.cookie(name, value, options);
  }
}
