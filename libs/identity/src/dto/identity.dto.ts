import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { ALL_PERMISSIONS, Permission } from '@app/common';

// Names: printable, no control characters, trimmed by the service.
// eslint-disable-next-line no-control-regex
const NAME_PATTERN = /^[^\u0000-\u001f\u007f-\u009f]+$/;

export class CreateTenantDto {
  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, { message: 'name must not contain control characters' })
  name!: string;
}
export class UpdateTenantDto extends CreateTenantDto {}

export class TenantDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() landlord!: boolean;
  @ApiProperty() createdDate!: string;
  @ApiProperty() createdUser!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) updatedDate!: string | null;
}

export class CreateRoleDto {
  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, { message: 'name must not contain control characters' })
  name!: string;

  @ApiProperty({
    type: [Number],
    enum: ALL_PERMISSIONS,
    description: 'Permission codes (see GET /api/RoleRegistry/Permissions)',
  })
  @IsArray()
  @ArrayMaxSize(64)
  @IsIn(ALL_PERMISSIONS as Permission[], {
    each: true,
    message: 'permissions must hold known permission codes',
  })
  permissions!: Permission[];

  @ApiPropertyOptional({
    description: "Landlord only: the tenant to create the role in; default the caller's",
  })
  @IsOptional()
  @IsUUID()
  tenantGuid?: string;
}
export class UpdateRoleDto {
  @ApiPropertyOptional({ maxLength: 256 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, { message: 'name must not contain control characters' })
  name?: string;

  @ApiPropertyOptional({ type: [Number], enum: ALL_PERMISSIONS })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsIn(ALL_PERMISSIONS as Permission[], {
    each: true,
    message: 'permissions must hold known permission codes',
  })
  permissions?: Permission[];
}

export class RoleDto {
  @ApiProperty() guid!: string;
  @ApiProperty() tenantGuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [Number] }) permissions!: number[];
  @ApiProperty({ type: [String] }) permissionNames!: string[];
  @ApiProperty() createdDate!: string;
}

export class PermissionDto {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
}

export class CreateUserDto {
  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(NAME_PATTERN, { message: 'name must not contain control characters' })
  name!: string;

  @ApiPropertyOptional({ maxLength: 320 })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email?: string;

  @ApiProperty()
  @IsUUID()
  roleGuid!: string;

  @ApiPropertyOptional({
    description: 'Initial password; omit for users who sign in only through OpenID Connect or Negotiate',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  password?: string;

  @ApiPropertyOptional({ description: 'The password must be changed at first sign-in (default true)' })
  @IsOptional()
  @IsBoolean()
  passwordExpired?: boolean;

  @ApiPropertyOptional({
    description: 'Password expiry instant (ISO 8601); ignored when passwordExpired is true',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  passwordExpiryDate?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  wirePasswordHash?: boolean;
}

export class UpdateUserDto {
  @ApiPropertyOptional({ maxLength: 320, nullable: true })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsUUID()
  roleGuid?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  wirePasswordHash?: boolean;
}

export class ResetPasswordDto {
  @ApiProperty()
  @IsString()
  @MaxLength(1024)
  password!: string;

  @ApiPropertyOptional({ description: 'The user must change it at next sign-in (default true)' })
  @IsOptional()
  @IsBoolean()
  passwordExpired?: boolean;

  @ApiPropertyOptional({ description: 'Sets the per-user WirePasswordHash flag along with the password' })
  @IsOptional()
  @IsBoolean()
  wirePasswordHash?: boolean;
}

export class UserDto {
  @ApiProperty() guid!: string;
  @ApiProperty() tenantGuid!: string;
  @ApiProperty() roleGuid!: string;
  @ApiProperty() name!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) email!: string | null;
  @ApiProperty() active!: boolean;
  @ApiProperty() passwordLocked!: boolean;
  @ApiPropertyOptional({ type: String, nullable: true }) passwordLockedDate!: string | null;
  @ApiProperty() failedPasswordCount!: number;
  @ApiPropertyOptional({ type: String, nullable: true }) passwordExpiryDate!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) lastLoginDate!: string | null;
  @ApiProperty() wirePasswordHash!: boolean;
  @ApiProperty() hasPassword!: boolean;
  @ApiProperty() createdDate!: string;
}
