import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from './client';

export type SignInOptions = Schemas['SignInOptionsDto'];

/** How the service signs people in; the same for everybody and for the life of the process. */
export const signInOptionsQuery = queryOptions({
  queryKey: ['sign-in-options'],
  queryFn: async (): Promise<SignInOptions> => (await unwrap(api.GET('/api/Authentication/Options'))).data,
  staleTime: Infinity,
});

export interface Session extends Omit<Schemas['SessionDto'], 'absoluteExpiresAt'> {
  /** ms since the epoch (service clock): the session ends then whatever happens. */
  absoluteExpiresAt: number | null;
  /** service clock minus this browser's clock, from the answer's Date header (ms). */
  clockOffset: number;
}

/** The signed-in user. Fetched through the cookie, it also slides the session (a fresh 15-minute token). */
export const sessionQuery = queryOptions({
  queryKey: ['session'],
  queryFn: async (): Promise<Session> => {
    const { data, response } = await unwrap(api.GET('/api/Authentication/Session'));
    const serverNow = Date.parse(response.headers.get('Date') ?? '');
    return {
      ...data,
      absoluteExpiresAt: data.absoluteExpiresAt ? Date.parse(data.absoluteExpiresAt) : null,
      clockOffset: Number.isNaN(serverNow) ? 0 : serverNow - Date.now(),
    };
  },
  retry: false,
  staleTime: 30_000,
});
