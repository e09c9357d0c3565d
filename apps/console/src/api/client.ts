import createClient from 'openapi-fetch';
import type { components, paths } from './schema.gen';
import { ApiError } from './problem';

/** Types of the service's API, generated from its OpenAPI document (scripts/console.ts). */
export type Schemas = components['schemas'];

/**
 * The typed client of the service. Same origin only: the session travels in the HttpOnly
 * `authentication-jwt` cookie, which this page can neither read nor store, and every write is a
 * same-origin JSON request, so the service's CSRF origin check passes as it is.
 */
export const api = createClient<paths>({
  baseUrl: '',
  credentials: 'same-origin',
  cache: 'no-store',
  headers: { Accept: 'application/json' },
});

/**
 * The If-Match of a change to a record read earlier (its `version`, the ETag the service answered): the
 * change is written only if nobody changed the record meanwhile, else the service answers 412.
 */
export function ifMatch(record: { version: number }): { 'If-Match': string } {
  return { 'If-Match': `"${record.version}"` };
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a success, or an ApiError (status 0 when no answer came at all). */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<{ data: T; response: Response }> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch {
    throw new ApiError(0, null);
  }
  if (answer.response.ok && answer.data !== undefined)
    return { data: answer.data, response: answer.response };
  throw ApiError.fromResponse(answer.response, answer.error);
}

/** A success that may carry no body (204), or an ApiError. */
export async function done(call: Promise<Answer<unknown>>): Promise<Response> {
  let answer: Answer<unknown>;
  try {
    answer = await call;
  } catch {
    throw new ApiError(0, null);
  }
  if (answer.response.ok) return answer.response;
  throw ApiError.fromResponse(answer.response, answer.error);
}
