import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { InvokeStage } from '@app/telemetry';

/** The OpenAPI description of an Invoke answer (InvokeResponse, invoke.service.ts). */
export class TracePointDto {
  @ApiProperty({ enum: InvokeStage, enumName: 'InvokeStage', description: 'The trace point' })
  message!: InvokeStage;
  @ApiProperty({ minimum: 0, description: 'Microseconds since the invocation started' })
  elapsedMicroseconds!: number;
  @ApiProperty({ minimum: 0, description: 'Microseconds since the previous trace point' })
  sinceLastEntryMicroseconds!: number;
}

export class ActivationDto {
  @ApiProperty({ format: 'uuid' }) entityAnalysisModelActivationRuleGuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The case workflow it opens a case in',
  })
  caseWorkflowGuid!: string | null;
  @ApiProperty({ type: String, nullable: true }) caseKey!: string | null;
  @ApiProperty({ type: String, nullable: true }) caseKeyValue!: string | null;
}

export class InvokeResponseDto {
  @ApiProperty({ format: 'uuid', description: 'The invocation (archived under this GUID)' })
  entityAnalysisModelInstanceEntryGuid!: string;
  @ApiProperty({ format: 'uuid' }) entityAnalysisModelGuid!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The request's entry reference, when the model reads one",
  })
  entryReference!: string | null;
  @ApiProperty({ format: 'date-time' }) referenceDate!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }],
    },
    description: 'The fields the model extracted (by request XPath name), converted to their data types',
  })
  fields!: Record<string, string | number | boolean | null>;
  @ApiProperty({ type: [ActivationDto], description: 'The activation rules that matched' })
  activations!: ActivationDto[];
  @ApiPropertyOptional({ type: [TracePointDto], description: 'With trace=true: the trace points, in order' })
  trace?: TracePointDto[];
}

export class ReprocessResponseDto extends InvokeResponseDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ['inserted', 'upgraded', 'unchanged', 'skipped', 'failed'] },
    description: 'What case creation did for each activation that names a case workflow, in order',
  })
  caseOutcomes!: string[];
}
