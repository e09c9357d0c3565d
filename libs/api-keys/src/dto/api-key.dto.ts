import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ValidateIf } from 'class-validator';
import { CharacterCount, IsGuid, IsName, NoControlCharacters, Optional } from '@app/input-rules';

export class CreateApiKeyDto {
  @ApiProperty()
  @IsGuid()
  userRegistryGuid!: string;

  @IsName()
  name!: string;

  @ApiProperty({ type: String, description: 'null or absent: none' })
  @Optional({ nullable: true })
  @CharacterCount(1, 1024)
  @NoControlCharacters()
  description?: string | null;
}

export class ListApiKeysQuery {
  @ApiProperty()
  @IsGuid()
  userRegistryGuid!: string;

  // The optional paging (documented by ApiPaged, checked by pageRequest): let through here, never required.
  @ApiHideProperty() @ValidateIf(() => false) @Allow() limit?: unknown;
  @ApiHideProperty() @ValidateIf(() => false) @Allow() cursor?: unknown;
}

export class ApiKeyDto {
  @ApiProperty() guid!: string;
  @ApiProperty() userRegistryGuid!: string;
  @ApiProperty() name!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ description: 'First eight characters of the key, for audit' }) displayIdentifier!: string;
  @ApiProperty() createdDate!: string;
  @ApiProperty() createdUser!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) revokedDate!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) revokedUser!: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The raw key. Shown once, never again: store it now.' }) key!: string;
}
