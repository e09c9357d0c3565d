import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, isObject, IsString, Matches, Max, Min } from 'class-validator';
import {
  CharacterCount,
  IsGuid,
  IsName,
  NoControlCharacters,
  Optional,
  ValidateWithSchema,
} from '@app/input-rules';
import { VersionProperty } from '@app/http-edge';
import { JSON_PATH_PATTERN } from '../model/json-path';

/** Field names are tokens in templates and variables in conditions: identifiers only. */
export const FIELD_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const DATA_TYPES = ['String', 'Integer', 'Float', 'Boolean', 'DateTime'] as const;
export type DataTypeName = (typeof DATA_TYPES)[number];

/** A condition is a JSON Logic operation (an object; checked in depth by the service: 422) or true/false. */
const IsJsonLogic = () =>
  ValidateWithSchema(
    'isJsonLogic',
    { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'boolean' }] },
    (value) => typeof value === 'boolean' || isObject(value),
    '$property must be a JSON Logic operation (an object) or true or false',
  );

/** A JSON path into the request body (the grammar of parseJsonPath), 1 to 512 characters. */
const IsJsonPath = (property: string) =>
  applyDecorators(
    IsString(),
    CharacterCount(1, 512),
    Matches(JSON_PATH_PATTERN, {
      message: `${property} must be a JSON path of .name and [index] steps, e.g. $.customer.email or $.items[0].sku`,
    }),
  );

/** White space, letters … anything but a control character: what a URL may hold after its authority. */
const URL_REST = '(?:[/?#][^\\s\\u0000-\\u001f\\u007f-\\u009f]*)?';
const LABEL = '[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const PORT = '(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';

/**
 * An http(s) URL template: a host name whose last label starts with a letter, a dotted IPv4 address or one
 * `{FieldName}` token, an optional port, then anything but white space or control characters (`{FieldName}`
 * tokens anywhere, URL-encoded when filled). Every text it matches is a URL once its tokens are filled (a unit
 * test holds it to the WHATWG parser); user information, IPv6 literals and `xn--` labels are not taken.
 */
export const URL_TEMPLATE_PATTERN = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://(?:(?:${LABEL}\\.)*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*|${OCTET}(?:\\.${OCTET}){3}|\\{[A-Za-z_][A-Za-z0-9_]*\\})${PORT}${URL_REST}$`,
);

const fieldName = (property: string) =>
  Matches(FIELD_NAME_PATTERN, {
    message: `${property} must be an identifier (letters, digits, _; at most 128)`,
  });

// ---------------------------------------------------------------- EntityAnalysisModel
export class CreateModelDto {
  @IsName()
  name!: string;

  @ApiProperty({ default: true })
  @Optional()
  @IsBoolean()
  active?: boolean;

  @ApiProperty({ type: 'integer', description: 'Logs: Warn Threshold Milliseconds; null = off' })
  @Optional({ nullable: true })
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  logsWarnThresholdMilliseconds?: number | null;

  @ApiProperty({ default: true })
  @Optional()
  @IsBoolean()
  enableRdbmsArchive?: boolean;

  @ApiProperty({
    type: String,
    description: 'JSON path of the entry identifier, e.g. $.transactionId; null = none',
  })
  @Optional({ nullable: true })
  @IsJsonPath('entryXPath')
  entryXPath?: string | null;

  @ApiProperty({ type: String, description: 'JSON path of the reference date, e.g. $.occurred; null = now' })
  @Optional({ nullable: true })
  @IsJsonPath('referenceDateXPath')
  referenceDateXPath?: string | null;

  @ApiProperty({
    type: 'integer',
    description:
      'Days its archived invocations are kept (those an open case names are kept longer); null = the ArchiveRetentionInterval settings; 0 = for ever',
  })
  @Optional({ nullable: true })
  @IsInt()
  @Min(0)
  @Max(36_500)
  archiveRetentionDays?: number | null;
}

export class UpdateModelDto extends PartialType(CreateModelDto, { skipNullProperties: false }) {}

export class ModelDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() active!: boolean;
  @ApiPropertyOptional({ type: Number, nullable: true }) logsWarnThresholdMilliseconds!: number | null;
  @ApiProperty() enableRdbmsArchive!: boolean;
  @ApiPropertyOptional({ type: String, nullable: true }) entryXPath!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) referenceDateXPath!: string | null;
  @ApiPropertyOptional({ type: Number, nullable: true }) archiveRetentionDays!: number | null;
  @ApiProperty() createdDate!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) updatedDate!: string | null;
  @VersionProperty() version!: number;
}

// ---------------------------------------------------------------- EntityAnalysisModelRequestXPath
export class CreateRequestXPathDto {
  @ApiProperty({ description: 'Field name: letters, digits and _, not starting with a digit' })
  @IsString()
  @fieldName('name')
  name!: string;

  @ApiProperty({ description: 'JSON path into the request body, e.g. $.customer.email or $.items[0].sku' })
  @IsJsonPath('xPath')
  xPath!: string;

  @ApiProperty({ enum: DATA_TYPES })
  @IsIn(DATA_TYPES as readonly string[], { message: `dataType must be one of ${DATA_TYPES.join(', ')}` })
  dataType!: DataTypeName;

  @ApiProperty({ default: false })
  @Optional()
  @IsBoolean()
  required?: boolean;
}

export class UpdateRequestXPathDto extends PartialType(CreateRequestXPathDto, {
  skipNullProperties: false,
}) {}

export class RequestXPathDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() xPath!: string;
  @ApiProperty({ enum: DATA_TYPES }) dataType!: DataTypeName;
  @ApiProperty() required!: boolean;
}

// ---------------------------------------------------------------- EntityAnalysisModelActivationRule
export class CreateActivationRuleDto {
  @IsName()
  name!: string;

  @ApiProperty({
    description:
      'A JSON Logic operation over the extracted fields, e.g. {">": [{"var": "Amount"}, 1000]}; no member named __proto__, constructor or prototype at any depth (400)',
    type: Object,
  })
  @IsJsonLogic()
  condition!: object | boolean;

  @ApiProperty({ type: String, description: 'Case workflow to raise when the rule activates; null = none' })
  @Optional({ nullable: true })
  @IsGuid()
  caseWorkflowGuid?: string | null;

  @ApiProperty({ type: String, description: 'Status of that workflow to raise; null = none' })
  @Optional({ nullable: true })
  @IsGuid()
  caseWorkflowStatusGuid?: string | null;

  @ApiProperty({ type: String, description: 'The extracted field whose value is the case key value' })
  @Optional({ nullable: true })
  @IsString()
  @fieldName('caseKeyFieldName')
  caseKeyFieldName?: string | null;

  @ApiProperty({ default: true })
  @Optional()
  @IsBoolean()
  active?: boolean;
}

export class UpdateActivationRuleDto extends PartialType(CreateActivationRuleDto, {
  skipNullProperties: false,
}) {}

export class ActivationRuleDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    description: 'A JSON Logic operation, or true or false',
    oneOf: [{ type: 'object', additionalProperties: true }, { type: 'boolean' }],
  })
  condition!: unknown;
  @ApiPropertyOptional({ type: String, nullable: true }) caseWorkflowGuid!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) caseWorkflowStatusGuid!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) caseKeyFieldName!: string | null;
  @ApiProperty() active!: boolean;
}

// ---------------------------------------------------------------- CaseWorkflow
export class CreateCaseWorkflowDto {
  @IsName()
  name!: string;

  @ApiProperty({ default: true })
  @Optional()
  @IsBoolean()
  active?: boolean;
}

export class UpdateCaseWorkflowDto extends PartialType(CreateCaseWorkflowDto, {
  skipNullProperties: false,
}) {}

export class CaseWorkflowDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty() createdDate!: string;
  @VersionProperty() version!: number;
}

// ---------------------------------------------------------------- CaseWorkflowStatus
export const HTTP_METHODS = ['POST', 'GET'] as const;

export class CreateCaseWorkflowStatusDto {
  @ApiProperty()
  @IsGuid()
  caseWorkflowGuid!: string;

  @IsName()
  name!: string;

  @ApiProperty({ type: 'integer', description: 'A lower number wins' })
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  priority!: number;

  @ApiProperty({ default: false })
  @Optional()
  @IsBoolean()
  enableNotification?: boolean;

  @ApiProperty({ type: String, description: 'E-mail address template, {FieldName} tokens' })
  @Optional({ nullable: true })
  @CharacterCount(1, 1024)
  @NoControlCharacters()
  notificationDestination?: string | null;

  @ApiProperty({ type: String, description: 'Subject template, {FieldName} tokens' })
  @Optional({ nullable: true })
  @CharacterCount(1, 1024)
  @NoControlCharacters()
  notificationSubject?: string | null;

  @ApiProperty({ type: String, description: 'Body template, {FieldName} tokens (tabs and line breaks kept)' })
  @Optional({ nullable: true })
  @CharacterCount(1, 65_536)
  notificationBody?: string | null;

  @ApiProperty({ default: false })
  @Optional()
  @IsBoolean()
  enableHttpEndpoint?: boolean;

  @ApiProperty({ type: String, description: 'http(s) URL; {FieldName} tokens are URL-encoded' })
  @Optional({ nullable: true })
  @CharacterCount(1, 2048)
  @Matches(URL_TEMPLATE_PATTERN, {
    message: 'httpEndpointUrl must be an absolute http or https URL ({FieldName} tokens allowed)',
  })
  httpEndpointUrl?: string | null;

  @ApiProperty({ type: String, enum: HTTP_METHODS })
  @Optional({ nullable: true })
  @IsIn(HTTP_METHODS as readonly string[], { message: 'httpEndpointMethod must be POST or GET' })
  httpEndpointMethod?: 'POST' | 'GET' | null;
}

/** A status stays in its workflow. */
export class UpdateCaseWorkflowStatusDto extends PartialType(
  OmitType(CreateCaseWorkflowStatusDto, ['caseWorkflowGuid'] as const),
  { skipNullProperties: false },
) {}

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
  @VersionProperty() version!: number;
}
