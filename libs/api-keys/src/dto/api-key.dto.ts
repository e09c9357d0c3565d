import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { IsName, NoControlCharacters, Optional } from '@app/common';

export class CreateApiKeyDto {
  @ApiProperty()
  @IsUUID()
  userRegistryGuid!: string;

  @IsName()
  name!: string;

  @ApiProperty({ type: String, maxLength: 1024, description: 'null or absent: none' })
  @Optional({ nullable: true })
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  @NoControlCharacters()
  description?: string | null;
}

export class ListApiKeysQuery {
  @ApiProperty()
  @IsUUID()
  userRegistryGuid!: string;

  // The optional paging (documented by ApiPaged, checked by pageRequest).
  @ApiHideProperty() @Allow() limit?: unknown;
  @ApiHideProperty() @Allow() cursor?: unknown;
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
