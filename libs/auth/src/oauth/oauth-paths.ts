import { LOGIN_PAGE_PATH } from '../browser-challenge.filter';
import { localReturnUrl } from '@app/declarations';

export const OAUTH_CALLBACK_PATH = '/api/Authentication/OAuth/Callback';
export const OAUTH_LOGIN_PATH = '/api/Authentication/OAuth/Login';
/** Where a failed sign-in lands: the Login page, told not to go straight back to the provider. */
export const LOGIN_PAGE_FAILED = `${LOGIN_PAGE_PATH}?failed=1`;

/**
 * spec: OAuth / OpenID Connect 2 — under OAuthAuthentication the Login page goes straight to the provider
 * (through the sign-in start), keeping a local returnUrl.
 */
export function oauthLoginLocation(returnUrl: unknown): string {
  const local = localReturnUrl(returnUrl);
  return local === '/' ? OAUTH_LOGIN_PATH : `${OAUTH_LOGIN_PATH}?returnUrl=${encodeURIComponent(local)}`;
}

/** The largest form_post callback read (the form body limit of every other form route). */
export const OAUTH_CALLBACK_BODY_LIMIT = 64 * 1024;
