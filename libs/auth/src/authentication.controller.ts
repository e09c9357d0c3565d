import { Body, Controller, Get, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
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
import { NegotiateService } from './negotiate.service';
import { PasswordTransport } from './password-transport';
import { SessionTokens } from './session-tokens';
import { SignInAuditFilter } from './sign-in-audit.filter';
import { SignInService } from './sign-in.service';

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
  @HttpCode(200)
  @UseFilters(SignInAuditFilter)
  @ApiOkResponse({ type: SignedInDto })
  byUserNamePassword(
    @Body() body: SignInDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto> {
    return this.signIn.signIn(body, request, response);
  }

  /** A signed-in user changes their password: earlier sessions end and this caller gets a new session. */
  @Post('ChangePassword')
  @Authenticated()
  @HttpCode(200)
  @ApiOkResponse({ type: SignedInDto })
  changePassword(
    @CurrentActor() actor: Actor,
    @Body() body: ChangePasswordDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto> {
    return this.signIn.signIn(
      { userName: actor.userName, ...body },
      request,
      response,
      actor.sessionStartedAt,
    );
  }

  /**
   * spec: Authentication endpoints, Identity schemes (Negotiate) — no body; `Authorization: Negotiate <token>`.
   * 200 with the sign-in body and cookies; 401 with `WWW-Authenticate: Negotiate` when the handshake
   * cannot complete or the user cannot sign in; 404 while NegotiateAuthentication is False.
   */
  @Get('ByNegotiate')
  @Public()
  @ApiOkResponse({ type: SignedInDto })
  byNegotiate(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<SignedInDto> {
    return this.negotiate.signInByNegotiate(request, response);
  }

  @Post('WirePasswordHash')
  @Public()
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
