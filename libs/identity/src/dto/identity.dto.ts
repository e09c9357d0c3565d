import {
  ApiProperty,
  ApiPropertyOptional,
  IntersectionType,
  OmitType,
  PartialType,
  PickType,
} from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn } from 'class-validator';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import {
  CharacterCount,
  IsEmailAddress,
  IsGuid,
  IsInstant,
  IsIdentityName,
  Optional,
} from '@app/input-rules';
import { VersionProperty } from '@app/http-edge';

export class CreateTenantDto {
  @IsIdentityName()
  name!: string;
}
export class UpdateTenantDto extends PartialType(CreateTenantDto, { skipNullProperties: false }) {}

export class TenantDto {
  @ApiProperty() guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() landlord!: boolean;
  @ApiProperty() createdDate!: string;
  @ApiProperty() createdUser!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) updatedDate!: string | null;
  @VersionProperty() version!: number;
}

export class CreateRoleDto {
  @IsIdentityName()
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

  @ApiProperty({ description: "Landlord only: the tenant to create the role in; default the caller's" })
  @Optional()
  @IsGuid()
  tenantGuid?: string;
}
/** A role stays in its tenant. */
export class UpdateRoleDto extends PartialType(OmitType(CreateRoleDto, ['tenantGuid'] as const), {
  skipNullProperties: false,
}) {}

export class RoleDto {
  @ApiProperty() guid!: string;
  @ApiProperty() tenantGuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [Number] }) permissions!: number[];
  @ApiProperty({ type: [String] }) permissionNames!: string[];
  @ApiProperty() createdDate!: string;
  @ApiProperty({
    description: 'How many live users hold the role (the service refuses to delete it while any do)',
  })
  users!: number;
  @VersionProperty() version!: number;
}

export class PermissionDto {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
}

export class CreateUserDto {
  @IsIdentityName()
  name!: string;

  @ApiProperty({ type: String, description: 'null or absent: no e-mail address' })
  @Optional({ nullable: true })
  @IsEmailAddress()
  @CharacterCount(0, 320)
  email?: string | null;

  @ApiProperty()
  @IsGuid()
  roleGuid!: string;

  @ApiProperty({
    description:
      'Initial password, held to the password rules (PasswordMinimumLength…: 422 otherwise); omit for users who sign in only through OpenID Connect or Negotiate',
  })
  @Optional()
  @CharacterCount(1, 1024)
  password?: string;

  @ApiProperty({ description: 'The password must be changed at first sign-in (default true)' })
  @Optional()
  @IsBoolean()
  passwordExpired?: boolean;

  @ApiProperty({ description: 'Password expiry instant (ISO 8601); ignored when passwordExpired is true' })
  @Optional()
  @IsInstant()
  passwordExpiryDate?: string;

  @ApiProperty()
  @Optional()
  @IsBoolean()
  wirePasswordHash?: boolean;
}

class UserStateDto {
  @ApiProperty({ description: 'false deactivates the user (their sessions and API keys stop at once)' })
  @IsBoolean()
  active!: boolean;
}

/** The name and the password have their own routes (a name is fixed; ResetPassword). */
/** wirePasswordHash is not here: it changes only together with a password (create, ResetPassword). */
export class UpdateUserDto extends PartialType(
  IntersectionType(PickType(CreateUserDto, ['email', 'roleGuid'] as const), UserStateDto),
  { skipNullProperties: false },
) {}

export class ResetPasswordDto {
  @ApiProperty({ description: 'Held to the password rules (PasswordMinimumLength…): 422 otherwise' })
  @CharacterCount(1, 1024)
  password!: string;

  @ApiProperty({ description: 'The user must change it at next sign-in (default true)' })
  @Optional()
  @IsBoolean()
  passwordExpired?: boolean;

  @ApiProperty({ description: 'Sets the per-user WirePasswordHash flag along with the password' })
  @Optional()
  @IsBoolean()
  wirePasswordHash?: boolean;
}

/** A role a user administrator may give, by name (GET /api/UserRegistry/AssignableRoles). */
export class RoleChoiceDto {
  @ApiProperty({ format: 'uuid' }) guid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid' }) tenantGuid!: string;
  @ApiProperty() tenantName!: string;
}

export class UserDto {
  @ApiProperty() guid!: string;
  @ApiProperty() tenantGuid!: string;
  @ApiProperty() roleGuid!: string;
  @ApiProperty() name!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) email!: string | null;
  @ApiProperty() active!: boolean;
  @ApiProperty({
    description:
      'An automatic lock is in force: new password sign-ins are refused until passwordLockedUntil or an Unlock; sessions keep working. Sign-in state: not covered by the ETag (version)',
  })
  passwordLocked!: boolean;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'When the lock in force began (null: none in force)',
  })
  passwordLockedDate!: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'When the lock in force lifts by itself (null: none in force, or a lock set before locks lifted by themselves, which lasts until Unlock)',
  })
  passwordLockedUntil!: string | null;
  @ApiProperty({ description: 'Consecutive wrong passwords counted towards the next lock (sign-in state)' })
  failedPasswordCount!: number;
  @ApiPropertyOptional({ type: String, nullable: true }) passwordExpiryDate!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) lastLoginDate!: string | null;
  @ApiProperty() wirePasswordHash!: boolean;
  @ApiProperty() hasPassword!: boolean;
  @ApiProperty() createdDate!: string;
  @VersionProperty() version!: number;
}
