import { Inject, Injectable } from '@nestjs/common';
import type { CookieOptions, Request, Response } from 'express';
import { SETTINGS, Settings } from '@app/config';
import type { IssuedToken } from './session-tokens';

export const JWT_COOKIE = 'authentication-jwt';
export const EXPIRY_COOKIE = 'authentication-expiry';

/**
 * The two session cookies. authentication-jwt: HttpOnly, SameSite=Lax, Path=/, Secure when the request came
 * over HTTPS; a browser-session cookie when SessionCookie is True, else it expires with the token.
 * authentication-expiry: readable by scripts, the token's expiry as an ISO-8601 instant, same lifetime rules.
 */
@Injectable()
export class SessionCookies {
  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  private base(req: Request): CookieOptions {
    return {
      path: '/',
      sameSite: 'lax',
      secure: req.secure,
    };
  }

  set(req: Request, res: Response, issued: IssuedToken): void {
    // A request that replaces its session (password change over a cookie) answers only the new cookies.
    this.dropPending(res);
    const lifetime: CookieOptions = this.settings.SessionCookie
      ? {}
      : { expires: new Date(issued.expiresAt) };
    res.cookie(JWT_COOKIE, issued.token, { ...this.base(req), ...lifetime, httpOnly: true });
    res.cookie(EXPIRY_COOKIE, new Date(issued.expiresAt).toISOString(), {
      ...this.base(req),
      ...lifetime,
      httpOnly: false,
    });
  }

  clear(req: Request, res: Response): void {
    res.clearCookie(JWT_COOKIE, { ...this.base(req), httpOnly: true });
    res.clearCookie(EXPIRY_COOKIE, { ...this.base(req), httpOnly: false });
  }

  private dropPending(res: Response): void {
    const pending = res.getHeader('Set-Cookie');
    if (!Array.isArray(pending)) return;
    const kept = pending.filter((c) => !c.startsWith(`${JWT_COOKIE}=`) && !c.startsWith(`${EXPIRY_COOKIE}=`));
    if (kept.length !== pending.length) res.setHeader('Set-Cookie', kept);
  }
}
