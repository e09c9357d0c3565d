import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';

// eslint-disable-next-line no-control-regex
const NO_CONTROL = /^[^\u0000-\u001f\u007f-\u009f]*$/;

export class CreateApiKeyDto {
  @ApiProperty()
  @IsUUID()
  userRegistryGuid!: string;

  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NO_CONTROL, { message: 'name must not contain control characters' })
  name!: string;

  @ApiPropertyOptional({ maxLength: 1024 })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  @Matches(NO_CONTROL, { message: 'description must not contain control characters' })
  description?: string;
}

export class ListApiKeysQuery {
  @ApiProperty()
  @IsUUID()
  userRegistryGuid!: string;
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
