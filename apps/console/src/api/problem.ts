/** RFC 9457 problem details, the body of every error answer of the service. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: { field: string; message: string }[];
}

/** Problem types the console reacts to (docs/authentication.md). */
export const PROBLEM_TYPE = {
  signInFailed: 'urn:problem-type:sign-in-failed',
  passwordExpired: 'urn:problem-type:password-expired',
  negotiateRequired: 'urn:problem-type:negotiate-required',
  validation: 'urn:problem-type:validation',
  csrfOrigin: 'urn:problem-type:csrf-origin',
} as const;

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as Problem).type === 'string' &&
    typeof (body as Problem).status === 'number'
  );
}

/** Retry-After in seconds (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('Retry-After');
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** An answer that was not a success, or no answer at all (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
    readonly retryAfter: number | null = null,
  ) {
    super(problem?.detail ?? problem?.title ?? (status === 0 ? 'no answer' : `status ${status}`));
    this.name = 'ApiError';
  }

  static fromResponse(response: Response, body: unknown): ApiError {
    return new ApiError(response.status, isProblem(body) ? body : null, retryAfterSeconds(response));
  }

  is(type: string): boolean {
    return this.problem?.type === type;
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "in 40 seconds" / "in 2 minutes" / "shortly". */
export function inAbout(seconds: number | null): string {
  if (seconds === null) return 'shortly';
  if (seconds < 90) return `in ${plural(Math.max(1, seconds), 'second')}`;
  return `in ${plural(Math.ceil(seconds / 60), 'minute')}`;
}

/**
 * What a person is told about an error no page words itself: the service is unreachable, busy, refusing
 * too many attempts (429, a per-address rate limit), or said something specific (a field refused).
 */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong in this page. Reload it and try again.';
  switch (error.status) {
    case 0:
      return 'The service could not be reached. Check the connection and try again.';
    case 429:
      return `Too many attempts from this address. Try again ${inAbout(error.retryAfter)}.`;
    case 503:
      return `The service is unavailable at the moment. Try again ${inAbout(error.retryAfter)}.`;
    case 400:
    case 422:
      return error.problem?.errors?.[0]?.message ?? error.problem?.detail ?? 'The request was not valid.';
    case 412:
      return 'This record was changed by someone else since you opened it: nothing was saved. Reload the page to see their change, then make yours again.';
    default:
      return error.problem?.detail ?? `The service answered with status ${error.status}.`;
  }
}
