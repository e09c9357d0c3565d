import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TelemetryModule } from '@app/telemetry';
import { AdminEventRepository } from './admin-events/admin-event.repository';
import { AdminEvents } from './admin-events/admin-events.service';
import { AnsweredWrites } from './admin-events/admin-request.middleware';
import { AuditRepository } from './audit.repository';
import { AUDIT_ENTITIES } from './entities';
import { LoginRecorder } from './login-recorder';
import { LogoutRecorder } from './logout-recorder';

@Module({
  imports: [TypeOrmModule.forFeature(AUDIT_ENTITIES), TelemetryModule],
  providers: [
    AuditRepository,
    LoginRecorder,
    LogoutRecorder,
    AdminEventRepository,
    AdminEvents,
    { provide: AnsweredWrites, useExisting: AdminEvents },
  ],
  exports: [LoginRecorder, LogoutRecorder, AdminEvents],
})
/** Every write request is known to AdminEvents through watchWrites, a step of the service's middleware layer. */
export class AuditModule {}
