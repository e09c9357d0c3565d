import { Body, Controller, Get, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Actor, Authenticated, CurrentActor, PERMISSION_NAMES, Public } from '@app/common';
import { AuthProblems } from './auth-problems';
import {
  ChangePasswordDto,
  PasswordPublicKeyDto,
  SessionDto,
  SignedInDto,
  SignInDto,
  WirePasswordHashDto,
  WirePasswordHashRequestDto,
} from './dto/authentication.dto';
import { PasscodeDto, SecondFactorRequiredDto } from './dto/second-factor.dto';
import { NegotiateService } from './negotiate.service';
import { PasswordTransport } from './password-transport';
import { SessionTokens } from './session-tokens';
import { SignInAuditFilter } from './sign-in-audit.filter';
import { SignInService } from './sign-in.service';
import { SIGN_IN_BUCKET, SignInRoute, WIRE_PASSWORD_HASH_BUCKET } from './sign-in-limits';

/** spec: Errors — 202 while the second factor is pending (passcode still required). */
function accepted(
  response: Response,
  outcome: SignedInDto | SecondFactorRequiredDto,
): SignedInDto | SecondFactorRequiredDto {
  if ('secondFactorRequired' in outcome) response.status(202);
  return outcome;
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

@ApiTags('Authentication')
@Controller('api/Authentication')
export class AuthenticationController {
  constructor(
    private readonly signIn: SignInService,
    private readonly negotiate: NegotiateService,
    private readonly transport: PasswordTransport,
    private readonly tokens: SessionTokens,
  ) {}

  @Post('ByUserNamePassword')
  @Public()
  @SignInRoute(SIGN_IN_BUCKET)
  @HttpCode(200)
  @UseFilters(SignInAuditFilter)
  @ApiOkResponse({ type: SignedInDto })
  @ApiAcceptedResponse({ type: SecondFactorRequiredDto, description: 'Password proven; passcode required' })
  async byUserNamePassword(
    @Body() body: SignInDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto | SecondFactorRequiredDto> {
    return accepted(response, await this.signIn.signIn(body, request, response));
  }

  /** The second step of a sign-in with EnableMultifactorAuthentication (404 when it is off). */
  @Post('Passcode')
  @Public()
  @SignInRoute(SIGN_IN_BUCKET)
  @HttpCode(200)
  @ApiOkResponse({ type: SignedInDto })
  passcode(
    @Body() body: PasscodeDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto> {
    return this.signIn.passcode(body, request, response);
  }

  /** A signed-in user changes their password: earlier sessions end and this caller gets a new session. */
  @Post('ChangePassword')
  @Authenticated({ sessionOnly: true })
  @SignInRoute(SIGN_IN_BUCKET)
  @HttpCode(200)
  @ApiOkResponse({ type: SignedInDto })
  @ApiAcceptedResponse({ type: SecondFactorRequiredDto, description: 'Password proven; passcode required' })
  async changePassword(
    @CurrentActor() actor: Actor,
    @Body() body: ChangePasswordDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto | SecondFactorRequiredDto> {
    return accepted(
      response,
      await this.signIn.signIn(
        { userName: actor.userName, ...body },
        request,
        response,
        actor.sessionStartedAt,
      ),
    );
  }

  /**
   * spec: Authentication endpoints, Identity schemes (Negotiate) — no body; `Authorization: Negotiate <token>`.
   * 200 with the sign-in body and cookies (202 with a passcode token when EnableMultifactorAuthentication is
   * True); 401 with `WWW-Authenticate: Negotiate` when the handshake
   * cannot complete or the user cannot sign in; 404 while NegotiateAuthentication is False.
   */
  @Get('ByNegotiate')
  @Public()
  @ApiOkResponse({ type: SignedInDto })
  @ApiAcceptedResponse({ type: SecondFactorRequiredDto, description: 'Identity proven; passcode required' })
  async byNegotiate(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto | SecondFactorRequiredDto> {
    // spec: Negotiate 2 — with the second factor enabled, success is 202 and the passcode follows.
    return accepted(response, await this.negotiate.signInByNegotiate(request, response));
  }

  @Post('WirePasswordHash')
  @Public()
  @SignInRoute(WIRE_PASSWORD_HASH_BUCKET)
  @HttpCode(200)
  @ApiOkResponse({ type: WirePasswordHashDto })
  async wirePasswordHash(@Body() body: WirePasswordHashRequestDto): Promise<WirePasswordHashDto> {
    return { wirePasswordHash: await this.signIn.wirePasswordHash(body.userName) };
  }

  @Get('PasswordPublicKey')
  @Public()
  @ApiOkResponse({ type: PasswordPublicKeyDto })
  passwordPublicKey(): PasswordPublicKeyDto {
    this.signIn.ensureEnabled();
    if (!this.transport.publicKeyPem) throw AuthProblems.disabled();
    return { publicKey: this.transport.publicKeyPem, algorithm: 'RSA-OAEP-256' };
  }

  @Get('Session')
  @Authenticated()
  @ApiOkResponse({ type: SessionDto })
  session(@CurrentActor() actor: Actor): SessionDto {
    const permissions = [...actor.permissions].sort((a, b) => a - b);
    return {
      userGuid: actor.userGuid,
      userName: actor.userName,
      tenantGuid: actor.tenantGuid,
      landlord: actor.landlord,
      permissions,
      permissionNames: permissions.map((p) => PERMISSION_NAMES[p]),
      credential: actor.credential,
      sessionStartedAt: iso(actor.sessionStartedAt),
      tokenExpiresAt: iso(actor.tokenExpiresAt),
      absoluteExpiresAt:
        actor.sessionStartedAt === undefined ? null : iso(this.tokens.absoluteExpiry(actor.sessionStartedAt)),
    };
  }
}
