import { Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  Actor,
  AdminAction,
  Authenticated,
  Client,
  ClientContext,
  clientContextOf,
  CurrentActor,
  GuidParam,
  type IfMatch,
  IfMatchHeader,
  Permission,
  Public,
} from '@app/common';
import { ApiKeyService } from '@app/api-keys';
import { presentedCredential, SessionCookies, writeCookies } from '@app/auth';
import { LogoutOutcome } from '@app/audit';
import { LoggedOutDto } from './dto/sessions.dto';
import { LOGOUT_WARNING_HEADER, LogoutService, REVOCATION_FAILED } from './logout.service';
import { SessionRevocationService } from './session-revocation.service';
import { StreamRegistry } from './stream-registry';

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
  @ApiOkResponse({ type: LoggedOutDto })
  @ApiHeader({
    name: LOGOUT_WARNING_HEADER,
    required: false,
    description: `${REVOCATION_FAILED} when the session could not be revoked (the cookies were still deleted)`,
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

@ApiTags('UserRegistry')
@Controller('api/UserRegistry')
export class RevokeTokensController {
  constructor(private readonly revocation: SessionRevocationService) {}

  /** spec: Revoke Sessions — the caller's own tenant only; 204. */
  @Post('RevokeTokens/:id')
  @AdminAction('UserRegistry', 'RevokeSessions', 'id')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiNoContentResponse({ description: 'Every session of the user has ended' })
  @ApiOperation({ operationId: 'revokeUserTokens', summary: 'Revoke Sessions: every session of a user ends' })
  revokeTokens(
    @CurrentActor() actor: Actor,
    @GuidParam('id') id: string,
    @Client() client: ClientContext,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<void> {
    return this.revocation.revokeByAdministrator(actor, id, client, ifMatch);
  }
}

@ApiTags('Stream')
@Controller('api/Stream')
export class StreamController {
  constructor(
    private readonly streams: StreamRegistry,
    private readonly apiKeys: ApiKeyService,
  ) {}

  /**
   * Server-sent events: `open`, then `heartbeat` every StreamHeartbeatMilliseconds, the events other
   * features publish (StreamPublisher), and `closed` when the session ends.
   */
  @Get('Telemetry')
  @Authenticated()
  @ApiOperation({
    operationId: 'streamTelemetry',
    summary: 'Server-sent events: open, heartbeat, published events, closed',
  })
  @ApiOkResponse({
    description: 'An event stream (text/event-stream) until the session ends',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  telemetry(@CurrentActor() actor: Actor, @Req() request: Request, @Res() response: Response): void {
    const key = request.headers['x-api-key'];
    const recheck =
      actor.credential === 'api-key' && typeof key === 'string'
        ? async () => (this.apiKeys.validate(key), true)
        : undefined;
    if (request.socket.destroyed) return; // the client left while the guard was reading the database
    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-store, no-transform');
    response.setHeader('X-Accel-Buffering', 'no'); // reverse proxies must not buffer the stream
    response.flushHeaders();
    request.socket.setNoDelay(true);
    this.streams.open(actor, response, recheck);
  }
}
