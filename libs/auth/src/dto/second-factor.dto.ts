import { ApiProperty } from '@nestjs/swagger';
import { CharacterCount, NoControlCharacters } from '@app/input-rules';

export class SecondFactorRequiredDto {
  @ApiProperty({ enum: [true] }) secondFactorRequired!: true;
  @ApiProperty({ description: 'Proof of the password step, for POST /api/Authentication/Passcode' })
  passcodeToken!: string;
  @ApiProperty({ description: 'ISO-8601 instant the passcodeToken expires' }) expiresAt!: string;
}

export class PasscodeDto {
  @ApiProperty({ description: 'The passcodeToken of the 202 answer' })
  @CharacterCount(1, 4096)
  @NoControlCharacters()
  passcodeToken!: string;

  @ApiProperty({ description: 'The one-time passcode' })
  @CharacterCount(1, 256)
  @NoControlCharacters()
  passcode!: string;
}

export class MockSecondFactorRequestDto {
  @ApiProperty() @CharacterCount(0, 1024) applicationId!: string;
  @ApiProperty() @CharacterCount(0, 1024) clientKey!: string;
  @ApiProperty() @CharacterCount(0, 1024) userName!: string;
  @ApiProperty() @CharacterCount(0, 256) passcode!: string;
}

export class MockSecondFactorAnswerDto {
  @ApiProperty() valid!: boolean;
}
