import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Actor, Authenticated, CurrentActor } from '@app/access';
import { ApiKeyService } from '@app/api-keys';
import { StreamRegistry } from './stream-registry';

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
