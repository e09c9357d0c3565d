import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE } from './problem';

/** One refused field of a validation problem (`urn:problem-type:validation`). */
export class ProblemFieldErrorDto {
  @ApiProperty({ description: 'The request field (or query parameter) that was refused' }) field!: string;
  @ApiProperty() message!: string;
}

/** RFC 9457 problem details: the body of every error answer (application/problem+json). */
export class ProblemDto {
  @ApiProperty({ description: 'URN of the problem type (urn:problem-type:…), or about:blank' }) type!: string;
  @ApiProperty() title!: string;
  @ApiProperty() status!: number;
  @ApiPropertyOptional() detail?: string;
  @ApiPropertyOptional({ description: 'The request path' }) instance?: string;
  @ApiPropertyOptional({
    type: [ProblemFieldErrorDto],
    description: 'Validation problems: the refused fields',
  })
  errors?: ProblemFieldErrorDto[];
}

/** Documents error answers of an operation as application/problem+json bodies (status → description). */
export function ApiProblemResponses(answers: Record<number, string>) {
  return applyDecorators(
    ApiExtraModels(ProblemDto, ProblemFieldErrorDto),
    ...Object.entries(answers).map(([status, description]) =>
      ApiResponse({
        status: Number(status),
        description,
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: getSchemaPath(ProblemDto) } } },
      }),
    ),
  );
}
