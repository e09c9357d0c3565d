import { Inject, Injectable } from '@nestjs/common';
import { SESSION_TOKEN_SETTINGS, type SessionTokenSettings } from '@app/config';
import type { IssuedToken } from './session-tokens';

export const JWT_COOKIE = 'authentication-jwt';
export const EXPIRY_COOKIE = 'authentication-expiry';

/** What a response must do with one cookie: set it (`value`) or delete it (`value` null). */
export interface CookieInstruction {
  name: string;
  value: string | null;
  options: {
    path: string;
    httpOnly: boolean;
    secure: boolean;
    sameSite: 'lax' | 'strict' | 'none';
    expires?: Date;
    /** ms */
    maxAge?: number;
  };
}

/**
 * The two session cookies, as instructions the controller (or the guard) writes. authentication-jwt:
 * HttpOnly, SameSite=Lax, Path=/, Secure when the request came over HTTPS; a browser-session cookie when
 * SessionCookie is True, else it expires with the token. authentication-expiry: readable by scripts, the
 * token's expiry as an ISO-8601 instant, same lifetime rules.
 */
@Injectable()
export class SessionCookies {
  constructor(@Inject(SESSION_TOKEN_SETTINGS.token) private readonly settings: SessionTokenSettings) {}

  /** The cookies of a session (a sign-in, or the sliding refresh). */
  forSession(issued: IssuedToken, secure: boolean): CookieInstruction[] {
    const expires = this.settings.SessionCookie ? {} : { expires: new Date(issued.expiresAt) };
    const base = { path: '/', sameSite: 'lax' as const, secure, ...expires };
    return [
      { name: JWT_COOKIE, value: issued.token, options: { ...base, httpOnly: true } },
      {
        name: EXPIRY_COOKIE,
        value: new Date(issued.expiresAt).toISOString(),
        options: { ...base, httpOnly: false },
      },
    ];
  }

  /** Both cookies deleted (logout). */
  cleared(secure: boolean): CookieInstruction[] {
    const base = { path: '/', sameSite: 'lax' as const, secure };
    return [
      { name: JWT_COOKIE, value: null, options: { ...base, httpOnly: true } },
      { name: EXPIRY_COOKIE, value: null, options: { ...base, httpOnly: false } },
    ];
  }
}
