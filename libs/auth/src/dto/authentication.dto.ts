import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * Password fields accept up to 8192 characters so an RSA ciphertext (base64) fits; after decoding, a
 * password longer than 1024 characters is refused before any hashing.
 */
const WIRE_MAX = 8192;

export class SignInDto {
  @ApiProperty({ maxLength: 1024 })
  @IsString()
  @MaxLength(1024)
  userName!: string;

  @ApiPropertyOptional({ description: 'Plaintext, hex SHA-256 (WirePasswordHash) or RSA ciphertext' })
  @IsOptional()
  @IsString()
  @MaxLength(WIRE_MAX)
  password?: string;

  @ApiPropertyOptional({ description: 'A new password, when the current one has expired or is to change' })
  @IsOptional()
  @IsString()
  @MaxLength(WIRE_MAX)
  newPassword?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(WIRE_MAX)
  repeatNewPassword?: string;
}

export class ChangePasswordDto {
  @ApiProperty()
  @IsString()
  @MaxLength(WIRE_MAX)
  password!: string;

  @ApiProperty()
  @IsString()
  @MaxLength(WIRE_MAX)
  newPassword!: string;

  @ApiProperty()
  @IsString()
  @MaxLength(WIRE_MAX)
  repeatNewPassword!: string;
}

export class WirePasswordHashRequestDto {
  @ApiProperty({ maxLength: 1024 })
  @IsString()
  @MaxLength(1024)
  userName!: string;
}

export class WirePasswordHashDto {
  @ApiProperty() wirePasswordHash!: boolean;
}

export class SignedInDto {
  @ApiProperty({ description: 'The session JWT (also set in the authentication-jwt cookie)' }) token!: string;
  @ApiProperty({ description: 'ISO-8601 instant the token expires' }) expiresAt!: string;
  @ApiProperty({ description: 'ISO-8601 instant the session started' }) sessionStartedAt!: string;
}

export class PasswordPublicKeyDto {
  @ApiProperty({ description: 'RSA public key, SPKI PEM' }) publicKey!: string;
  @ApiProperty({ example: 'RSA-OAEP-256' }) algorithm!: string;
}

export class SessionDto {
  @ApiProperty() userGuid!: string;
  @ApiProperty() userName!: string;
  @ApiProperty() tenantGuid!: string;
  @ApiProperty() landlord!: boolean;
  @ApiProperty({ type: [Number] }) permissions!: number[];
  @ApiProperty({ type: [String] }) permissionNames!: string[];
  @ApiProperty() credential!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) sessionStartedAt!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) tokenExpiresAt!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) absoluteExpiresAt!: string | null;
}
