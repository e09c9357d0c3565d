import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';

// eslint-disable-next-line no-control-regex
const NAME_PATTERN = /^[^\u0000-\u001f\u007f-\u009f]+$/;
/** Field names are tokens in templates and variables in conditions: identifiers only. */
export const FIELD_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const DATA_TYPES = ['String', 'Integer', 'Float', 'Boolean', 'DateTime'] as const;
export type DataTypeName = (typeof DATA_TYPES)[number];

const nameMessage = { message: 'name must not contain control characters' };

// ---------------------------------------------------------------- EntityAnalysisModel
export class CreateModelDto {
  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, nameMessage)
  name!: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Logs: Warn Threshold Milliseconds; null = off',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  logsWarnThresholdMilliseconds?: number | null;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enableRdbmsArchive?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'JSON path of the entry identifier, e.g. $.transactionId',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(512)
  entryXPath?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'JSON path of the reference date, e.g. $.occurred',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(512)
  referenceDateXPath?: string | null;
}

export class UpdateModelDto {
  @ApiPropertyOptional({ maxLength: 256 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, nameMessage)
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  logsWarnThresholdMilliseconds?: number | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enableRdbmsArchive?: boolean;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(512)
  entryXPath?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(512)
  referenceDateXPath?: string | null;
}

export class ModelDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() active!: boolean;
  @ApiPropertyOptional({ type: Number, nullable: true }) logsWarnThresholdMilliseconds!: number | null;
  @ApiProperty() enableRdbmsArchive!: boolean;
  @ApiPropertyOptional({ type: String, nullable: true }) entryXPath!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) referenceDateXPath!: string | null;
  @ApiProperty() createdDate!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) updatedDate!: string | null;
}

// ---------------------------------------------------------------- EntityAnalysisModelRequestXPath
export class CreateRequestXPathDto {
  @ApiProperty({ description: 'Field name: letters, digits and _, not starting with a digit' })
  @IsString()
  @Matches(FIELD_NAME_PATTERN, { message: 'name must be an identifier (letters, digits, _; at most 128)' })
  name!: string;

  @ApiProperty({ description: 'JSON path into the request body, e.g. $.customer.email or $.items[0].sku' })
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  xPath!: string;

  @ApiProperty({ enum: DATA_TYPES })
  @IsIn(DATA_TYPES as readonly string[], { message: `dataType must be one of ${DATA_TYPES.join(', ')}` })
  dataType!: DataTypeName;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  required?: boolean;
}

export class UpdateRequestXPathDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Matches(FIELD_NAME_PATTERN, { message: 'name must be an identifier (letters, digits, _; at most 128)' })
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  xPath?: string;

  @ApiPropertyOptional({ enum: DATA_TYPES })
  @IsOptional()
  @IsIn(DATA_TYPES as readonly string[], { message: `dataType must be one of ${DATA_TYPES.join(', ')}` })
  dataType?: DataTypeName;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  required?: boolean;
}

export class RequestXPathDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() xPath!: string;
  @ApiProperty({ enum: DATA_TYPES }) dataType!: DataTypeName;
  @ApiProperty() required!: boolean;
}

// ---------------------------------------------------------------- EntityAnalysisModelActivationRule
export class CreateActivationRuleDto {
  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, nameMessage)
  name!: string;

  @ApiProperty({
    description: 'JSON Logic over the extracted fields, e.g. {">": [{"var": "Amount"}, 1000]}',
    type: Object,
  })
  @IsDefined()
  condition!: unknown;

  @ApiPropertyOptional({ description: 'Case workflow to raise when the rule activates' })
  @IsOptional()
  @IsUUID()
  caseWorkflowGuid?: string;

  @ApiPropertyOptional({ description: 'Status of that workflow to raise' })
  @IsOptional()
  @IsUUID()
  caseWorkflowStatusGuid?: string;

  @ApiPropertyOptional({ description: 'The extracted field whose value is the case key value' })
  @IsOptional()
  @IsString()
  @Matches(FIELD_NAME_PATTERN, { message: 'caseKeyFieldName must be a field name' })
  caseKeyFieldName?: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

export class UpdateActivationRuleDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, nameMessage)
  name?: string;

  @ApiPropertyOptional({ type: Object })
  @IsOptional()
  condition?: unknown;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  caseWorkflowGuid?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  caseWorkflowStatusGuid?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @Matches(FIELD_NAME_PATTERN, { message: 'caseKeyFieldName must be a field name' })
  caseKeyFieldName?: string | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

export class ActivationRuleDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: Object }) condition!: unknown;
  @ApiPropertyOptional({ type: String, nullable: true }) caseWorkflowGuid!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) caseWorkflowStatusGuid!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) caseKeyFieldName!: string | null;
  @ApiProperty() active!: boolean;
}

// ---------------------------------------------------------------- CaseWorkflow
export class CreateCaseWorkflowDto {
  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, nameMessage)
  name!: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

export class UpdateCaseWorkflowDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, nameMessage)
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

export class CaseWorkflowDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty() createdDate!: string;
}

// ---------------------------------------------------------------- CaseWorkflowStatus
export const HTTP_METHODS = ['POST', 'GET'] as const;

export class UpdateCaseWorkflowStatusDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, nameMessage)
  name?: string;

  @ApiPropertyOptional({ description: 'A lower number wins' })
  @IsOptional()
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  priority?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enableNotification?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'E-mail address template, {FieldName} tokens',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(1024)
  notificationDestination?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Subject template, {FieldName} tokens' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(1024)
  notificationSubject?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Body template, {FieldName} tokens' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(65_536)
  notificationBody?: string | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enableHttpEndpoint?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'http(s) URL; {FieldName} tokens are URL-encoded',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(2048)
  httpEndpointUrl?: string | null;

  @ApiPropertyOptional({ enum: HTTP_METHODS, nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsIn(HTTP_METHODS as readonly string[], { message: 'httpEndpointMethod must be POST or GET' })
  httpEndpointMethod?: 'POST' | 'GET' | null;
}

/** name and priority are required on creation (checked by the service, with a 400 naming them). */
export class CreateCaseWorkflowStatusDto extends UpdateCaseWorkflowStatusDto {
  @ApiProperty()
  @IsUUID()
  caseWorkflowGuid!: string;
}

export class CaseWorkflowStatusDto {
  @ApiProperty() guid!: string;
  @ApiProperty() caseWorkflowGuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() priority!: number;
  @ApiProperty() enableNotification!: boolean;
  @ApiPropertyOptional({ type: String, nullable: true }) notificationDestination!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) notificationSubject!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) notificationBody!: string | null;
  @ApiProperty() enableHttpEndpoint!: boolean;
  @ApiPropertyOptional({ type: String, nullable: true }) httpEndpointUrl!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) httpEndpointMethod!: string | null;
}
