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

/**
 * The machine-readable `code` of each entry of a problem's `errors` (stable: clients branch on it, never on
 * the English `message`), with what it means. The document lists them on ProblemFieldError.
 */
export const FIELD_ERROR_CODES = {
  unknown_parameter: 'a query parameter the operation does not declare',
  empty_value: 'a query parameter given with no value (`?limit=`)',
  repeated_parameter: 'a query parameter given more than once',
  not_in_enum: 'a value outside the parameter’s or member’s allowed values',
  out_of_range: 'a number past its minimum or maximum, a text or list past its length bounds',
  invalid_value: 'a value of the wrong type or form (not a whole number, not a GUID, not its pattern …)',
  unknown_member: 'a body member the operation does not declare',
  missing: 'a required member or parameter left out',
  conflicting_parameters: 'valid alone, but contradicts another parameter (422)',
  unprocessable: 'valid by the document, but names no visible record or breaks a configured rule (422)',
} as const;
export type FieldErrorCode = keyof typeof FIELD_ERROR_CODES;

/** One entry of a problem's `errors`. */
export interface ProblemFieldError {
  field: string;
  message: string;
  code?: FieldErrorCode;
}

/** Every entry of `errors` with its code: the given one, else the status's own (400: invalid, 422: unprocessable). */
function withCodes(errors: unknown, status: number): unknown {
  if (!Array.isArray(errors)) return errors;
  const fallback: FieldErrorCode = status === 422 ? 'unprocessable' : 'invalid_value';
  return errors.map((e: ProblemFieldError) => (e.code ? e : { ...e, code: fallback }));
}

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
    const status = this.getStatus();
    return {
      ...this.extensions,
      ...('errors' in this.extensions ? { errors: withCodes(this.extensions.errors, status) } : {}),
      type: this.problemType,
      title: this.problemTitle,
      status,
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
  constructor(detail: string, errors: ProblemFieldError[]) {
    super(HttpStatus.BAD_REQUEST, 'The request is not valid', detail, ProblemType.validation, { errors });
  }

  /** One refused field (a member's path, a query or path parameter, `$` for the body itself). */
  static field(field: string, message: string, code?: FieldErrorCode): RequestRefusal {
    return new RequestRefusal(message, [{ field, message, ...(code ? { code } : {}) }]);
  }
}

export const Problems = {
  validation: (detail: string, errors?: ProblemFieldError[]) =>
    new ProblemException(
      HttpStatus.BAD_REQUEST,
      'The request is not valid',
      detail,
      ProblemType.validation,
      errors ? { errors } : {},
    ),
  badParameter: (parameter: string, detail: string, code: FieldErrorCode = 'invalid_value') =>
    new ProblemException(HttpStatus.BAD_REQUEST, 'The request is not valid', detail, ProblemType.validation, {
      errors: [{ field: parameter, message: detail, code }],
    }),
  /**
   * 422: each parameter is valid by the document, but together they contradict each other (`to` before
   * `from`, `beforeId` without `beforeTime`): every parameter involved named, code conflicting_parameters.
   */
  conflictingParameters: (parameters: string[], detail: string) =>
    Problems.unprocessableFields(
      detail,
      parameters.map((field) => ({ field, message: detail, code: 'conflicting_parameters' as const })),
    ),
  /**
   * 422: the request is valid by the OpenAPI document (its schema), but names a record that does not exist or
   * is not visible, contradicts another field or the record's state, or breaks a configured rule (the password
   * rules). `errors` names the field, as a validation problem does; a 400 means the document's own rules.
   */
  unprocessable: (field: string, detail: string) =>
    Problems.unprocessableFields(detail, [{ field, message: detail }]),
  unprocessableFields: (detail: string, errors: ProblemFieldError[]) =>
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
