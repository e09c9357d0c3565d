import { localReturnUrl } from '@app/declarations';

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
