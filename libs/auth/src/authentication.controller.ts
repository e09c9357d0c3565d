import { Body, Controller, Get, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Actor, Authenticated, CurrentActor, PERMISSION_NAMES, Public } from '@app/access';
import { ApiProblemResponses } from '@app/problems';
import { clientContextOf } from '@app/http-edge';
import { IdentityAuthService } from '@app/identity';
import { AuthProblems } from './auth-problems';
import {
  ChangePasswordDto,
  PasswordPublicKeyDto,
  SessionDto,
  SignedInDto,
  SignInDto,
  SignInOptionsDto,
  WirePasswordHashDto,
  WirePasswordHashRequestDto,
} from './dto/authentication.dto';
import { PasscodeDto, SecondFactorRequiredDto } from './dto/second-factor.dto';
import { writeCookies } from './http/session-response';
import { NEGOTIATE_SCHEME, NegotiateService } from './negotiate.service';
import { PasswordTransport } from './password-transport';
import { SessionTokens } from './session-tokens';
import { ChangePasswordAuditFilter, PasscodeAuditFilter, SignInAuditFilter } from './sign-in-audit.filter';
import { SignInOutcome, SignInService } from './sign-in.service';
import { SIGN_IN_BUCKET, SignInRoute, WIRE_PASSWORD_HASH_BUCKET } from './sign-in-limits.guard';
import { AppPassport } from './strategies/app-passport';
import { handshakeOf, NEGOTIATE_STRATEGY, NegotiateStrategy } from './strategies/negotiate.strategy';
import type { EstablishedHandshake } from './negotiate.service';

/**
 * The answer of a sign-in step: its status (spec: Errors — 202 while the second factor is pending), its
 * cookies, its body.
 */
function answer<O extends SignInOutcome>(response: Response, outcome: O): O['body'] {
  response.status(outcome.status);
  writeCookies(response, outcome.cookies);
  return outcome.body;
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

@ApiTags('Authentication')
@Controller('api/Authentication')
export class AuthenticationController {
  constructor(
    private readonly signIn: SignInService,
    private readonly negotiate: NegotiateService,
    negotiateStrategy: NegotiateStrategy,
    private readonly passport: AppPassport,
    private readonly transport: PasswordTransport,
    private readonly tokens: SessionTokens,
    private readonly identity: IdentityAuthService,
  ) {
    passport.use(NEGOTIATE_STRATEGY, negotiateStrategy);
  }

  /** What the Login page offers; anonymous, the same for every caller (nothing per user). */
  @Get('Options')
  @Public()
  @ApiOperation({
    operationId: 'getSignInOptions',
    summary: 'How the Login page signs people in (the same for every caller)',
  })
  @ApiOkResponse({ type: SignInOptionsDto })
  options(): SignInOptionsDto {
    return this.signIn.options();
  }

  @Post('ByUserNamePassword')
  @Public()
  @SignInRoute(SIGN_IN_BUCKET)
  @HttpCode(200)
  @UseFilters(SignInAuditFilter)
  @ApiOperation({
    operationId: 'signInByUserNamePassword',
    summary: 'Sign in with a user name and password (or change an expired password)',
  })
  @ApiOkResponse({ type: SignedInDto })
  @ApiProblemResponses({
    400: 'A field is not valid (errors name the field)',
    401: 'Sign-in failed (urn:problem-type:sign-in-failed), or the password has expired (urn:problem-type:password-expired)',
    422: 'The password was proven but the new password is refused: not repeated alike, breaks the password rules or equals the current one (urn:problem-type:unprocessable; errors name the field)',
    404: 'Password sign-in is disabled (OAuth or Negotiate is on)',
  })
  @ApiAcceptedResponse({ type: SecondFactorRequiredDto, description: 'Password proven; passcode required' })
  async byUserNamePassword(
    @Body() body: SignInDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto | SecondFactorRequiredDto> {
    return answer(response, await this.signIn.signIn(body, clientContextOf(request)));
  }

  /** The second step of a sign-in with EnableMultifactorAuthentication (404 when it is off). */
  @Post('Passcode')
  @Public()
  @SignInRoute(SIGN_IN_BUCKET)
  @UseFilters(PasscodeAuditFilter)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'signInByPasscode',
    summary: 'Complete a sign-in with the one-time passcode (second factor)',
  })
  @ApiOkResponse({ type: SignedInDto })
  @ApiProblemResponses({
    400: 'A field is not valid',
    401: 'Sign-in failed (urn:problem-type:sign-in-failed)',
    404: 'The second factor is off',
  })
  async passcode(
    @Body() body: PasscodeDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto> {
    return answer(response, await this.signIn.passcode(body, clientContextOf(request)));
  }

  /** A signed-in user changes their password: earlier sessions end and this caller gets a new session. */
  @Post('ChangePassword')
  @Authenticated({ sessionOnly: true })
  @SignInRoute(SIGN_IN_BUCKET)
  @UseFilters(ChangePasswordAuditFilter)
  @HttpCode(200)
  @ApiOperation({ operationId: 'changePassword', summary: 'Change the password of the signed-in user' })
  @ApiOkResponse({ type: SignedInDto })
  @ApiProblemResponses({
    400: 'A field is not valid (errors name the field)',
    404: 'Password sign-in is disabled (OAuth or Negotiate is on)',
    422: 'The new password is refused: not repeated alike, breaks the password rules or equals the current one (urn:problem-type:unprocessable; errors name the field)',
  })
  @ApiAcceptedResponse({ type: SecondFactorRequiredDto, description: 'Password proven; passcode required' })
  async changePassword(
    @CurrentActor() actor: Actor,
    @Body() body: ChangePasswordDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto | SecondFactorRequiredDto> {
    return answer(
      response,
      await this.signIn.signIn(
        { userName: actor.userName, ...body },
        clientContextOf(request),
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
  @ApiOperation({ operationId: 'signInByNegotiate', summary: 'Sign in with Negotiate (Kerberos)' })
  @ApiOkResponse({ type: SignedInDto })
  @ApiProblemResponses({
    401: 'The Negotiate handshake did not complete (urn:problem-type:negotiate-required), with WWW-Authenticate: Negotiate',
    404: 'Negotiate is off',
    503: 'The database is not answering (urn:problem-type:service-unavailable); Retry-After',
  })
  @ApiAcceptedResponse({ type: SecondFactorRequiredDto, description: 'Identity proven; passcode required' })
  async byNegotiate(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedInDto | SecondFactorRequiredDto> {
    this.negotiate.ensureEnabled();
    const handshake = handshakeOf(
      await this.passport.run<EstablishedHandshake>(NEGOTIATE_STRATEGY, request, response),
    );
    // spec: Negotiate 2 — with the second factor enabled, success is 202 and the passcode follows.
    const outcome = await this.negotiate.signIn(handshake, clientContextOf(request));
    // RFC 4559 §5: the acceptor's final token (mutual authentication) goes back with the answer.
    if (handshake.kind === 'established' && handshake.responseToken)
      response.setHeader('WWW-Authenticate', `${NEGOTIATE_SCHEME} ${handshake.responseToken}`);
    return answer(response, outcome);
  }

  @Post('WirePasswordHash')
  @Public()
  @SignInRoute(WIRE_PASSWORD_HASH_BUCKET)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'getWirePasswordHash',
    summary: 'Which password form the browser must send for a user name',
  })
  @ApiOkResponse({ type: WirePasswordHashDto })
  @ApiProblemResponses({ 400: 'userName is not valid', 404: 'Password sign-in is disabled' })
  async wirePasswordHash(@Body() body: WirePasswordHashRequestDto): Promise<WirePasswordHashDto> {
    return { wirePasswordHash: await this.signIn.wirePasswordHash(body.userName) };
  }

  @Get('PasswordPublicKey')
  @Public()
  @ApiOperation({ operationId: 'getPasswordPublicKey', summary: 'The RSA public key for password transport' })
  @ApiOkResponse({ type: PasswordPublicKeyDto })
  @ApiProblemResponses({ 404: 'PasswordAsymmetricEncryption is off, or password sign-in is disabled' })
  passwordPublicKey(): PasswordPublicKeyDto {
    this.signIn.ensureEnabled();
    if (!this.transport.publicKeyPem) throw AuthProblems.disabled();
    return { publicKey: this.transport.publicKeyPem, algorithm: 'RSA-OAEP-256' };
  }

  /** The caller's session; through the cookie it also slides the session (a fresh 15-minute token). */
  @Get('Session')
  @Authenticated()
  @ApiOperation({ operationId: 'getSession', summary: 'The signed-in caller and their session' })
  @ApiOkResponse({ type: SessionDto })
  async session(@CurrentActor() actor: Actor): Promise<SessionDto> {
    const permissions = [...actor.permissions].sort((a, b) => a - b);
    return {
      userGuid: actor.userGuid,
      userName: actor.userName,
      tenantGuid: actor.tenantGuid,
      tenantName: await this.identity.tenantName(actor.tenantId),
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
