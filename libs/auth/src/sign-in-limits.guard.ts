import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  HttpStatus,
  Injectable,
  Logger,
  UseGuards,
} from '@nestjs/common';
import {
  SkipThrottle,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerStorage,
  ThrottlerStorageService,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import Redis from 'ioredis';
import type { SignInSettings } from '@app/config';
import { ApiProblemResponses, ProblemException, ProblemType } from '@app/problems';
import {
  carriesOtherThanJson,
  CheckInputAfterRouteGuards,
  LateRequestInputGuard,
  unsupportedMediaType,
} from '@app/input-rules';
import { withTimeout } from '@app/runtime';
import { ownOrigin } from './csrf';

/**
 * Per-address rate limits of the anonymous sign-in routes, against guessing at scale: a per-user lockout does not
 * stop password spraying across many users, nor a user-name census through WirePasswordHash. Two buckets,
 * each SignInRateLimitPerMinute requests a minute per client address (req.ip: the client address TrustProxy gives).
 */
export const SIGN_IN_BUCKET = 'sign-in';
export const WIRE_PASSWORD_HASH_BUCKET = 'wire-password-hash';
type Bucket = typeof SIGN_IN_BUCKET | typeof WIRE_PASSWORD_HASH_BUCKET;
const BUCKETS: readonly Bucket[] = [SIGN_IN_BUCKET, WIRE_PASSWORD_HASH_BUCKET];
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Fixed window in Redis: one INCR per request, the window's expiry set by the first. */
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {hits, ttl}`;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The counters: in Redis when it is configured, so every node counts the same requests; in this process
 * otherwise, and also while Redis does not answer within 250 ms (the limit still holds per node: a Redis
 * outage degrades it, it never switches it off or blocks sign-in).
 */
export class SignInRateLimitStorage implements ThrottlerStorage {
  private readonly logger = new Logger('SignInRateLimit');
  private readonly local = new ThrottlerStorageService();
  private redisFailing = false;

  constructor(private readonly redis: Redis | null) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    name: string,
  ): Promise<ThrottlerStorageRecord> {
    if (this.redis) {
      try {
        const [hits, remainingMs] = (await withTimeout(
          this.redis.eval(INCREMENT, 1, `decisioning:rate:${key}`, String(ttl)),
          250,
          'Redis rate-limit count',
        )) as [number, number];
        if (this.redisFailing) this.logger.log('Rate limits are shared through Redis again');
        this.redisFailing = false;
        const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
        return {
          totalHits: hits,
          timeToExpire: seconds,
          isBlocked: hits > limit,
          timeToBlockExpire: hits > limit ? seconds : 0,
        };
      } catch (err) {
        if (!this.redisFailing)
          this.logger.warn(
            { err },
            'Redis does not answer: sign-in rate limits are counted per node meanwhile',
          );
        this.redisFailing = true;
      }
    }
    return this.local.increment(key, ttl, limit, blockDuration, name);
  }
}

export const RATE_LIMIT_POLICY_HEADER = 'RateLimit-Policy';
export const RATE_LIMIT_HEADER = 'RateLimit';

/**
 * The IETF httpapi RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-10, the structured-field form
 * of -08 onwards): the bucket's policy, `"sign-in";q=5;w=60` (quota, window in seconds), and what is left of
 * it, `"sign-in";r=2;t=41` (requests remaining, seconds until the window resets).
 */
export function rateLimitHeaders(
  bucket: string,
  quota: number,
  remaining: number,
  resetSeconds: number,
): Record<string, string> {
  return {
    [RATE_LIMIT_POLICY_HEADER]: `"${bucket}";q=${quota};w=${RATE_LIMIT_WINDOW_MS / 1000}`,
    [RATE_LIMIT_HEADER]: `"${bucket}";r=${Math.max(0, remaining)};t=${Math.max(0, Math.ceil(resetSeconds))}`,
  };
}

/** The throttler's headers (`X-RateLimit-Limit-<bucket>`, …) as the bucket and what they say. */
function throttlerField(
  prefix: string,
  name: string,
): { bucket: Bucket; field: 'Limit' | 'Remaining' | 'Reset' } | undefined {
  for (const bucket of BUCKETS)
    for (const field of ['Limit', 'Remaining', 'Reset'] as const)
      if (name === `${prefix}-${field}-${bucket}`) return { bucket, field };
  return undefined;
}

/**
 * The throttler's guard, answering the service's 429 problem with a standard Retry-After, and every answer of a
 * sign-in route (the 429 included) with the RateLimit-Policy and RateLimit fields instead of the throttler's
 * own X-RateLimit-* headers: the throttler hands its figures to setResponseHeader, its hook for how headers are
 * written, one field at a time (limit, remaining, then reset).
 */
@Injectable()
export class SignInRateLimitGuard extends ThrottlerGuard {
  private readonly pending = new WeakMap<object, { limit?: number; remaining?: number }>();

  protected override setResponseHeader(res: Response, name: string, value: string | number): void {
    const f = throttlerField(this.headerPrefix, name);
    // Retry-After-<bucket> of a refusal: the 429 problem carries the standard Retry-After itself
    if (!f) return;
    const seen = this.pending.get(res) ?? {};
    this.pending.set(res, seen);
    if (f.field === 'Limit') seen.limit = Number(value);
    else if (f.field === 'Remaining') seen.remaining = Number(value);
    else if (seen.limit !== undefined && seen.remaining !== undefined) {
      for (const [header, text] of Object.entries(
        rateLimitHeaders(f.bucket, seen.limit, seen.remaining, Number(value)),
      ))
        res.setHeader(header, text);
      this.pending.delete(res);
    }
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    limit: ThrottlerLimitDetail,
  ): Promise<void> {
    const bucket = BUCKETS.find((b) => limit.key.startsWith(`${b}:`)) ?? SIGN_IN_BUCKET;
    const retryAfter = Math.max(1, limit.timeToBlockExpire);
    throw new ProblemException(
      HttpStatus.TOO_MANY_REQUESTS,
      'Too Many Requests',
      'Too many sign-in requests from this address; try again after the time in Retry-After.',
      ProblemType.blank,
      {},
      { 'Retry-After': String(retryAfter), ...rateLimitHeaders(bucket, limit.limit, 0, retryAfter) },
    );
  }
}

/**
 * Options of the throttler module: both buckets, one key per bucket and address; its headers on, written as the
 * RateLimit fields by the guard (SignInRateLimitGuard.setResponseHeader).
 */
export function signInRateLimits(settings: SignInSettings, storage: SignInRateLimitStorage) {
  return {
    throttlers: BUCKETS.map((name) => ({
      name,
      ttl: RATE_LIMIT_WINDOW_MS,
      limit: settings.SignInRateLimitPerMinute,
    })),
    // ByUserNamePassword and Passcode count together: one key per bucket, not per route.
    generateKey: (_context: ExecutionContext, tracker: string, name: string) => `${name}:${tracker}`,
    setHeaders: true,
    storage,
  };
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Login CSRF: a cross-site HTML form can post `application/x-www-form-urlencoded` to a
 * sign-in route and the browser stores the session cookie it gets, signing the victim into the attacker's
 * account. The sign-in, passcode, password-change and WirePasswordHash routes take JSON only (which a form
 * cannot send, and a cross-site script cannot without a CORS preflight this service never grants), and refuse
 * a request whose Sec-Fetch-Site or Origin proves it cross-site. (A client without those headers, curl or an
 * integration, is not a browser being abused.) The OAuth callback is not one of them: it takes the
 * provider's form_post, protected by its state.
 */
@Injectable()
export class SignInRequestGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (carriesOtherThanJson(req)) throw unsupportedMediaType();
    const site = header(req, 'sec-fetch-site');
    const origin = header(req, 'origin');
    const crossOrigin = origin !== undefined && origin !== ownOrigin(req);
    if (site === 'cross-site' || (site !== 'same-origin' && crossOrigin))
      throw new ProblemException(
        HttpStatus.FORBIDDEN,
        'Forbidden',
        'A sign-in request from another site is refused.',
        ProblemType.forbidden,
      );
    return true;
  }
}

/**
 * Marks a sign-in route: its rate-limit bucket, JSON only, never cross-site; then the input rules (hostile input),
 * so a body they refuse is counted by the rate limit like any other attempt.
 */
export function SignInRoute(bucket: Bucket) {
  return applyDecorators(
    SkipThrottle(Object.fromEntries(BUCKETS.filter((b) => b !== bucket).map((b) => [b, true]))),
    CheckInputAfterRouteGuards(),
    UseGuards(SignInRateLimitGuard, SignInRequestGuard, LateRequestInputGuard),
    ApiProblemResponses({
      403: 'A sign-in request from another site (Sec-Fetch-Site or Origin) (urn:problem-type:forbidden)',
      415: 'The body is not JSON (Content-Type: application/json, UTF-8)',
      429: 'Too many sign-in requests from this address (SignInRateLimitPerMinute); Retry-After, and RateLimit `r=0` (every answer of the route carries RateLimit-Policy and RateLimit)',
      503: 'The database, or for Passcode the second-factor provider, is not answering (urn:problem-type:service-unavailable); Retry-After. A passcode token stays usable',
    }),
  );
}
