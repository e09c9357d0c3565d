import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { takeBeforeAnswer } from './answer-hook';
import { isDatabaseUnavailable } from './database-errors';
import { PROBLEM_CONTENT_TYPE, ProblemDetails, ProblemException, Problems, ProblemType } from './problem';

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The realm of every 401's challenge: the whole service is one protection space (RFC 9110 §11.5). */
export const AUTH_REALM = 'decisioning-operations-service';

/**
 * The challenge of every 401 that names none of its own (RFC 9110 §15.5.2 requires one; RFC 6750 §3 form).
 * It never says why a credential failed (no `error` code): the problem body says all that is said. Negotiate's
 * challenge stays on ByNegotiate alone (its problem carries it), so a browser that may use Negotiate for this
 * host does not start a Kerberos handshake after every refused API call.
 */
export const BEARER_CHALLENGE = `Bearer realm="${AUTH_REALM}"`;

function withChallenge(status: number, headers: Record<string, string>): Record<string, string> {
  if (status !== 401 || Object.keys(headers).some((h) => h.toLowerCase() === 'www-authenticate'))
    return headers;
  return { ...headers, 'WWW-Authenticate': BEARER_CHALLENGE };
}

interface BodyParserError {
  type?: unknown;
  status?: unknown;
  statusCode?: unknown;
  /** The text that did not parse (body-parser keeps it on a parse error). */
  body?: unknown;
}

/**
 * A body that is JSON but not an object or an array (`null`, `5`, `"text"`, `true`): the strict parser refuses it
 * as it refuses malformed JSON, but it is valid JSON, so the answer says what is wrong with it, naming `$`.
 */
function bareJsonValue(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    const value = JSON.parse(text) as unknown;
    return value === null || typeof value !== 'object';
  } catch {
    return false;
  }
}

/** The 400 of a body that does not parse as JSON, or parses as a bare value: `errors` names the body (`$`). */
function unparsedBody(bp: BodyParserError): ProblemException {
  const message = bareJsonValue(bp.body)
    ? 'The request body must be a JSON object (or an array where the route takes one), not a bare null, number, string or boolean.'
    : 'The request body is not valid JSON.';
  return Problems.validation(message, [{ field: '$', message, code: 'invalid_value' }]);
}

/**
 * An error of a body parser (malformed JSON, too large, too deep, bad charset, an undecodable
 * Content-Encoding) as a problem; undefined for other errors. `fromParser`: the error certainly came from a
 * body parser (the app's parser middleware says so), so one without a type is a body that could not be read.
 */
export function bodyParserProblem(error: unknown, fromParser = false): ProblemException | undefined {
  // Thrown by our own verify hook (depth, UTF-8, charset), passed through by body-parser.
  if (error instanceof ProblemException) return error;
  const bp = (error ?? {}) as BodyParserError;
  const status = Number(bp.status ?? bp.statusCode ?? 400);
  if (typeof bp.type !== 'string') {
    // A compressed body that does not inflate (corrupt gzip, deflate or br): zlib's error, which body-parser
    // gives status 400 and no type.
    if (fromParser && status >= 400 && status < 500)
      return new ProblemException(
        400,
        'Bad Request',
        'The request body could not be decoded (Content-Encoding).',
      );
    return undefined;
  }
  if (
    !bp.type.startsWith('entity.') &&
    !['charset.unsupported', 'encoding.unsupported', 'parameters.too.many'].includes(bp.type)
  ) {
    return undefined;
  }
  if (bp.type === 'entity.parse.failed' && status === 400) return unparsedBody(bp);
  const detail =
    bp.type === 'entity.too.large'
      ? 'The request body is larger than allowed.'
      : 'The request body could not be read.';
  return new ProblemException(status, STATUS_TITLES[status] ?? 'Bad Request', detail);
}

/** A request answered with a problem (by ProblemFilter) carries it. */
export interface AnsweredProblem {
  answeredProblem?: ProblemDetails;
}

/** Turns every error into an RFC 9457 problem: no stack trace, no SQL, no secret ever leaves. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problem');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const response = ctx.getResponse<Response>();
    const request = ctx.getRequest<Request>();
    const { problem, headers } = this.toProblem(exception, request);
    // What a refused write was told, for its audit row (AdminEvent) written when the answer is finished.
    (request as Request & AnsweredProblem).answeredProblem = problem;
    if (response.headersSent) {
      response.end();
      return;
    }
    // No cache keeps a refusal, whatever the route (an unknown path's 404 included): it may depend on a credential.
    response.setHeader('Cache-Control', 'no-store');
    for (const [k, v] of Object.entries(headers)) response.setHeader(k, v);
    const write = () =>
      response.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
    const before = takeBeforeAnswer(response);
    if (!before) return void write();
    // the answer goes out after the wait, whatever the wait's end
    void before(problem.status, problem, headers).then(write, write);
  }

  /** The problem body of an error and the headers that go with it (every 401 with its challenge). */
  toProblem(
    exception: unknown,
    request: Request,
  ): { problem: ProblemDetails; headers: Record<string, string> } {
    const { problem, headers } = this.problemOf(exception, request);
    return { problem, headers: withChallenge(problem.status, headers) };
  }

  private problemOf(
    exception: unknown,
    request: Request,
  ): { problem: ProblemDetails; headers: Record<string, string> } {
    const instance = request.originalUrl?.split('?')[0];
    if (exception instanceof ProblemException) {
      return { problem: exception.toProblem(instance), headers: exception.headers };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      // (Validation problems are ProblemExceptions: the ValidationPipe's exceptionFactory, validation.ts.)
      const messages =
        typeof body === 'object' && body !== null && 'message' in body ? body.message : undefined;
      const detail = typeof messages === 'string' ? messages : exception.message;
      return {
        problem: {
          type: ProblemType.blank,
          title: STATUS_TITLES[status] ?? 'Error',
          status,
          detail: safeDetail(detail),
          instance,
        },
        headers: {},
      };
    }
    const bodyProblem = bodyParserProblem(exception);
    if (bodyProblem) return { problem: bodyProblem.toProblem(instance), headers: {} };
    if (isDatabaseUnavailable(exception)) {
      this.logger.error({ err: exception }, 'Database unavailable');
      return {
        problem: {
          type: ProblemType.unavailable,
          title: 'Service Unavailable',
          status: 503,
          detail: 'The database is not answering. Try again shortly.',
          instance,
        },
        headers: { 'Retry-After': '5' },
      };
    }
    this.logger.error({ err: exception }, 'Unhandled error');
    return {
      problem: {
        type: ProblemType.blank,
        title: 'Internal Server Error',
        status: 500,
        detail: 'An unexpected error occurred.',
        instance,
      },
      headers: {},
    };
  }
}

function safeDetail(detail: string): string {
  // Nest's own messages ("Cannot GET /x") are safe; cap the length regardless.
  return detail.length > 300 ? `${detail.slice(0, 300)}…` : detail;
}
