import { HttpException, HttpStatus } from '@nestjs/common';

/** RFC 9457 problem details body. Never carries a stack trace, SQL, or a secret. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Problem type URIs. `about:blank` means "no more than the HTTP status says" (RFC 9457 §4.2.1). */
export const ProblemType = {
  blank: 'about:blank',
  validation: 'urn:problem-type:validation',
  authenticationRequired: 'urn:problem-type:authentication-required',
  forbidden: 'urn:problem-type:forbidden',
  notFound: 'urn:problem-type:not-found',
  conflict: 'urn:problem-type:conflict',
  unprocessable: 'urn:problem-type:unprocessable',
  unavailable: 'urn:problem-type:service-unavailable',
} as const;

/** An HTTP error answered as a problem document. `extensions` become extra members of the body. */
export class ProblemException extends HttpException {
  constructor(
    status: HttpStatus,
    readonly problemTitle: string,
    readonly problemDetail?: string,
    readonly problemType: string = ProblemType.blank,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(problemDetail ?? problemTitle, status);
  }

  toProblem(instance?: string): ProblemDetails {
    return {
      ...this.extensions,
      type: this.problemType,
      title: this.problemTitle,
      status: this.getStatus(),
      ...(this.problemDetail ? { detail: this.problemDetail } : {}),
      ...(instance ? { instance } : {}),
    };
  }
}

/**
 * A 400 for the request itself, raised before the handler ran: the validation (validationProblem), the input
 * rules (request-input.ts), the GUID pipe. A route's filters can tell it from a 400 its service decided
 * (e.g. sign-in records a refused request as an attempt, not a refused new password).
 */
export class RequestRefusal extends ProblemException {
  constructor(detail: string, errors: { field: string; message: string }[]) {
    super(HttpStatus.BAD_REQUEST, 'The request is not valid', detail, ProblemType.validation, { errors });
  }

  /** One refused field (a member's path, a query or path parameter, `$` for the body itself). */
  static field(field: string, message: string): RequestRefusal {
    return new RequestRefusal(message, [{ field, message }]);
  }
}

export const Problems = {
  validation: (detail: string, errors?: { field: string; message: string }[]) =>
    new ProblemException(
      HttpStatus.BAD_REQUEST,
      'The request is not valid',
      detail,
      ProblemType.validation,
      errors ? { errors } : {},
    ),
  badParameter: (parameter: string, detail: string) =>
    new ProblemException(HttpStatus.BAD_REQUEST, 'The request is not valid', detail, ProblemType.validation, {
      errors: [{ field: parameter, message: detail }],
    }),
  /**
   * 422: the request is valid by the OpenAPI document (its schema), but names a record that does not exist or
   * is not visible, contradicts another field or the record's state, or breaks a configured rule (the password
   * rules). `errors` names the field, as a validation problem does; a 400 means the document's own rules.
   */
  unprocessable: (field: string, detail: string) =>
    Problems.unprocessableFields(detail, [{ field, message: detail }]),
  unprocessableFields: (detail: string, errors: { field: string; message: string }[]) =>
    new ProblemException(
      HttpStatus.UNPROCESSABLE_ENTITY,
      'The request cannot be processed',
      detail,
      ProblemType.unprocessable,
      { errors },
    ),
  notFound: (what = 'resource') =>
    new ProblemException(
      HttpStatus.NOT_FOUND,
      'Not Found',
      `The ${what} does not exist or is not visible to you.`,
      ProblemType.notFound,
    ),
  forbidden: (detail: string) =>
    new ProblemException(HttpStatus.FORBIDDEN, 'Forbidden', detail, ProblemType.forbidden),
  conflict: (detail: string) =>
    new ProblemException(HttpStatus.CONFLICT, 'Conflict', detail, ProblemType.conflict),
  unauthenticated: (detail = 'A valid credential is required.', extensions: Record<string, unknown> = {}) =>
    new ProblemException(
      HttpStatus.UNAUTHORIZED,
      'Unauthorized',
      detail,
      ProblemType.authenticationRequired,
      extensions,
    ),
  unavailable: (detail: string, retryAfterSeconds = 5) =>
    new ProblemException(
      HttpStatus.SERVICE_UNAVAILABLE,
      'Service Unavailable',
      detail,
      ProblemType.unavailable,
      {},
      {
        'Retry-After': String(retryAfterSeconds),
      },
    ),
};
