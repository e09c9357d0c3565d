import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { HeadersObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { FIELD_ERROR_CODES, PROBLEM_CONTENT_TYPE } from './problem';
import { BEARER_CHALLENGE } from './problem.filter';

/**
 * Every problem type URI the service answers (RFC 9457 `type`), with what it means. docs/SECURITY.md and
 * docs/authentication.md say when each is used; the OpenAPI document lists them on the Problem schema.
 */
export const PROBLEM_TYPES: Readonly<Record<string, string>> = {
  'about:blank': 'no more than the HTTP status says (RFC 9457 §4.2.1)',
  'urn:problem-type:validation': 'the request is not valid; `errors` names each refused field by its path',
  'urn:problem-type:authentication-required':
    'no accepted credential (`reason` Key Not Found for an API key)',
  'urn:problem-type:forbidden':
    'the credential is accepted but lacks the permission or tenant the route needs',
  'urn:problem-type:csrf-origin': 'a cookie-authenticated write that is not provably same-origin',
  'urn:problem-type:not-found': 'the record does not exist or is not visible to the caller',
  'urn:problem-type:conflict':
    'the change contradicts the current state (a name in use, the last landlord …)',
  'urn:problem-type:unprocessable':
    'the request is valid by this document but names a record that does not exist, contradicts another field or the record, or breaks a configured rule; `errors` names the field',
  'urn:problem-type:precondition-failed':
    'If-Match names another version of the record: someone else changed it since it was read',
  'urn:problem-type:service-unavailable':
    'the database, a queue or a provider cannot take it now (Retry-After)',
  'urn:problem-type:sign-in-failed': 'the sign-in failed; the answer never says why',
  'urn:problem-type:password-expired': 'the password was right but has expired; sign in with newPassword',
  'urn:problem-type:negotiate-required': 'the Negotiate handshake did not complete (ByNegotiate only)',
};

/** One refused field of a validation problem (`urn:problem-type:validation`). */
export class ProblemFieldErrorDto {
  @ApiProperty({
    description:
      'The refused field by its path (`name`, `statuses[2].name`), a query or path parameter, `$` for the body itself',
    example: 'name',
  })
  field!: string;
  @ApiProperty({ example: 'name must be shorter than or equal to 256 characters' }) message!: string;
  @ApiProperty({
    enum: Object.keys(FIELD_ERROR_CODES),
    description: `What is wrong, for a program (stable; \`message\` is for a person): ${Object.entries(
      FIELD_ERROR_CODES,
    )
      .map(([code, meaning]) => `\`${code}\` (${meaning})`)
      .join('; ')}`,
    example: 'out_of_range',
  })
  code!: string;
}

/**
 * RFC 9457 problem details: the body of every error answer (application/problem+json). Extension members
 * other than those listed may be added; clients ignore what they do not know.
 */
export class ProblemDto {
  @ApiProperty({
    description: `URI of the problem type: ${Object.entries(PROBLEM_TYPES)
      .map(([uri, meaning]) => `\`${uri}\` (${meaning})`)
      .join('; ')}.`,
    format: 'uri',
    example: 'urn:problem-type:validation',
  })
  type!: string;
  @ApiProperty({ description: 'Short summary of the problem type', example: 'The request is not valid' })
  title!: string;
  @ApiProperty({ type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status', example: 400 })
  status!: number;
  @ApiPropertyOptional({ description: 'What happened, for a person; never a stack trace, SQL or a secret' })
  detail?: string;
  @ApiPropertyOptional({ description: 'The request path', example: '/api/UserRegistry' })
  instance?: string;
  @ApiPropertyOptional({
    type: [ProblemFieldErrorDto],
    description: 'Validation problems (`urn:problem-type:validation`): every refused field',
  })
  errors?: ProblemFieldErrorDto[];
  @ApiPropertyOptional({
    description: 'Why an API key was refused: always `Key Not Found`, whatever failed (spec: API keys 4)',
    example: 'Key Not Found',
  })
  reason?: string;
  @ApiPropertyOptional({
    description: 'A refused sign-in whose password has expired (`urn:problem-type:password-expired`)',
  })
  passwordExpired?: boolean;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'GET /api/Ready to a signed-in caller: the state of each dependency',
  })
  checks?: Record<string, unknown>;
}

const RETRY_AFTER: HeadersObject = {
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer', minimum: 1 },
  },
};

/** Headers that go with a problem status: the challenge of every 401, Retry-After of 429 and 503. */
function problemHeaders(status: number): HeadersObject | undefined {
  if (status === 401)
    return {
      'WWW-Authenticate': {
        description: `The challenge: \`${BEARER_CHALLENGE}\` (ByNegotiate: \`Negotiate\`)`,
        schema: { type: 'string' },
      },
    };
  if (status === 429 || status === 503) return RETRY_AFTER;
  return undefined;
}

/** The response object of a problem answer (also used for the answers the document adds to every route). */
export function problemResponse(status: number, description: string) {
  const headers = problemHeaders(status);
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: getSchemaPath(ProblemDto) } } },
  };
}

/** Documents error answers of an operation as application/problem+json bodies (status → description). */
export function ApiProblemResponses(answers: Record<number, string>) {
  return applyDecorators(
    ApiExtraModels(ProblemDto, ProblemFieldErrorDto),
    ...Object.entries(answers).map(([status, description]) =>
      ApiResponse({ status: Number(status), ...problemResponse(Number(status), description) }),
    ),
  );
}
