import { CaptureQueuesModule } from '@app/capture-queues';
import { EngineModule } from '@app/engine';
import { TelemetryStreamBridge } from './telemetry-stream-bridge';
import { Module } from '@nestjs/common';
import { AuditModule } from '@app/audit';
import { ApiKeysModule } from '@app/api-keys';
import { AuthModule } from '@app/auth';
import { IdentityModule } from '@app/identity';
import { LogoutService } from './logout.service';
import { ActiveSessions } from './active-sessions';
import { ActiveSessionsController } from './active-sessions.controller';
import { LogoutController } from './logout.controller';
import { RevokeTokensController } from './revoke-tokens.controller';
import { StreamController } from './stream.controller';
import { SessionRevocationService } from './session-revocation.service';
import { StreamPublisher } from './stream-publisher';
import { StreamRegistry } from './stream-registry';

/** Logout, Revoke Sessions, and the streaming connections that close on revocation. */
@Module({
  imports: [ApiKeysModule, AuthModule, IdentityModule, AuditModule, CaptureQueuesModule, EngineModule],
  controllers: [LogoutController, RevokeTokensController, StreamController, ActiveSessionsController],
  providers: [
    TelemetryStreamBridge,
    StreamRegistry,
    StreamPublisher,
    SessionRevocationService,
    LogoutService,
    ActiveSessions,
  ],
  exports: [StreamPublisher, SessionRevocationService, StreamRegistry],
})
export class SessionsModule {}
