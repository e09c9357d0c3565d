import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CharacterCount, NoControlCharacters, Optional } from '@app/input-rules';

/**
 * Password fields accept up to 8192 characters so an RSA ciphertext (base64) fits; after decoding, a
 * password longer than 1024 characters is refused before any hashing.
 */
const WIRE_MAX = 8192;

/**
 * A user name as typed at sign-in. Names hold no control character (they are refused when a user is
 * created), so one that does is refused here too; an empty one is a sign-in of nobody (FailureTypeId 1).
 */
const SignInUserName = (min = 0) => applyDecorators(CharacterCount(min, 1024), NoControlCharacters());

export class SignInDto {
  @ApiProperty()
  @SignInUserName()
  userName!: string;

  /**
   * spec: FailureTypeId 6 — absent, null or empty, no password was supplied: a 401 with its UserLogin row
   * (sign-in keeps the spec's outcomes; null here is "none", as it always was).
   */
  @ApiProperty({ type: String, description: 'Plaintext, hex SHA-256 (WirePasswordHash) or RSA ciphertext' })
  @Optional({ nullable: true })
  @CharacterCount(0, WIRE_MAX)
  password?: string | null;

  @ApiProperty({
    type: String,
    description: 'A new password, when the current one has expired or is to change; null = none',
  })
  @Optional({ nullable: true })
  @CharacterCount(1, WIRE_MAX)
  newPassword?: string | null;

  @ApiProperty({ type: String })
  @Optional({ nullable: true })
  @CharacterCount(1, WIRE_MAX)
  repeatNewPassword?: string | null;
}

export class ChangePasswordDto {
  @ApiProperty()
  @CharacterCount(0, WIRE_MAX)
  password!: string;

  @ApiProperty()
  @CharacterCount(1, WIRE_MAX)
  newPassword!: string;

  @ApiProperty()
  @CharacterCount(1, WIRE_MAX)
  repeatNewPassword!: string;
}

export class WirePasswordHashRequestDto {
  @ApiProperty()
  @SignInUserName(1)
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
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The tenant's name (null if it was just deleted)",
  })
  tenantName!: string | null;
  @ApiProperty() landlord!: boolean;
  @ApiProperty({ type: [Number] }) permissions!: number[];
  @ApiProperty({ type: [String] }) permissionNames!: string[];
  @ApiProperty() credential!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) sessionStartedAt!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) tokenExpiresAt!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) absoluteExpiresAt!: string | null;
}

/** Which sign-in the Login page offers (one scheme at a time: spec, Identity schemes). */
export const SIGN_IN_MODES = ['password', 'oauth', 'negotiate'] as const;
export type SignInMode = (typeof SIGN_IN_MODES)[number];

/** What the Login page needs to know before anyone types anything; the same for every caller. */
export class SignInOptionsDto {
  @ApiProperty({
    enum: SIGN_IN_MODES,
    description:
      'password: the user name and password form; oauth: straight to the OpenID Provider; negotiate: Kerberos through the browser, no form',
  })
  mode!: SignInMode;

  @ApiProperty({ description: 'A one-time passcode follows a proven password or Negotiate identity' })
  secondFactor!: boolean;

  @ApiProperty({
    description: 'Password fields must be sent RSA-OAEP (SHA-256) encrypted (password mode only)',
  })
  passwordEncryption!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Where the RSA public key is, when passwordEncryption',
  })
  passwordPublicKeyPath!: string | null;

  @ApiProperty({ description: 'Shortest password a new password may be (PasswordMinimumLength)' })
  passwordMinimumLength!: number;

  @ApiProperty({ description: 'Longest password a new password may be (PasswordMaximumLength)' })
  passwordMaximumLength!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Where OpenID Connect sign-in starts, in oauth mode',
  })
  oauthLoginPath!: string | null;
}
