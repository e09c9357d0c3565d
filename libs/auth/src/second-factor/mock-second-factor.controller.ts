import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Public } from '@app/access';
import { SHIPPED_MFA_CLIENT_KEY, SECOND_FACTOR_SETTINGS, type SecondFactorSettings } from '@app/config';
import { MockSecondFactorAnswerDto, MockSecondFactorRequestDto } from '../dto/second-factor.dto';

/** The one passcode the bundled mock accepts (README: second factor). */
export const MOCK_PASSCODE = '000000';

/** Compares in constant time whatever the lengths (both sides hashed first). */
function sameText(a: string, b: string): boolean {
  const h = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(h(a), h(b));
}

/**
 * spec: Endpoints — POST /api/mfa, the bundled mock one-time-passcode endpoint and the default second-factor
 * endpoint. It speaks the protocol of HttpSecondFactorProvider and accepts the fixed passcode only while
 * MultifactorAuthenticationClientKey is at its shipped default and the caller sends that key and this
 * service's MultifactorAuthenticationApplicationId (spec: Second factor 4).
 */
@ApiTags('Authentication')
@Controller('api')
export class MockSecondFactorController {
  constructor(@Inject(SECOND_FACTOR_SETTINGS.token) private readonly settings: SecondFactorSettings) {}

  @Post('mfa')
  @Public()
  @HttpCode(200)
  @ApiOkResponse({ type: MockSecondFactorAnswerDto })
  @ApiOperation({
    operationId: 'verifyMockPasscode',
    summary: 'The bundled mock second-factor endpoint (accepts one fixed passcode)',
  })
  verify(@Body() body: MockSecondFactorRequestDto): MockSecondFactorAnswerDto {
    const shipped = this.settings.MultifactorAuthenticationClientKey === SHIPPED_MFA_CLIENT_KEY;
    // Every comparison runs, so the time taken does not tell which one failed.
    const keyMatches = sameText(body.clientKey, SHIPPED_MFA_CLIENT_KEY);
    const applicationMatches = sameText(
      body.applicationId,
      this.settings.MultifactorAuthenticationApplicationId,
    );
    const passcodeMatches = sameText(body.passcode, MOCK_PASSCODE);
    return { valid: shipped && keyMatches && applicationMatches && passcodeMatches };
  }
}
