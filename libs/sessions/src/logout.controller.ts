import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { clientContextOf } from '@app/http-edge';
import { Public } from '@app/access';
import { presentedCredential, SessionCookies, writeCookies } from '@app/auth';
import { LogoutOutcome } from '@app/audit';
import { LoggedOutDto } from './dto/sessions.dto';
import { LOGOUT_WARNING_HEADER, LogoutService, REVOCATION_FAILED } from './logout.service';

@ApiTags('Authentication')
@Controller('api/Authentication')
export class LogoutController {
  constructor(
    private readonly logouts: LogoutService,
    private readonly cookies: SessionCookies,
  ) {}

  /**
   * spec: Authentication endpoints — anonymous, no body needed, always 200. Needs no antiforgery token and
   * is exempt from the CSRF origin rule (docs/sessions.md): it can only end sessions.
   */
  @Post('Logout')
  @Public()
  @HttpCode(200)
  @ApiOkResponse({
    type: LoggedOutDto,
    // a header of the answer, not of the request
    headers: {
      [LOGOUT_WARNING_HEADER]: {
        description: `${REVOCATION_FAILED} when the session could not be revoked (the cookies were still deleted)`,
        schema: { type: 'string', enum: [REVOCATION_FAILED] },
      },
    },
  })
  @ApiOperation({
    operationId: 'logout',
    summary: 'Log out: the session ends and both cookies are deleted; always 200',
  })
  async logout(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LoggedOutDto> {
    // First, so nothing below can keep the browser signed in (spec: Logout behaviour 1).
    writeCookies(response, this.cookies.cleared(request.secure));
    response.setHeader('Cache-Control', 'no-store');
    const outcome = await this.logouts.logout(presentedCredential(request), clientContextOf(request));
    if (outcome === LogoutOutcome.RevocationFailed)
      response.setHeader(LOGOUT_WARNING_HEADER, REVOCATION_FAILED);
    return { loggedOut: true };
  }
}
