import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditRepository } from './audit.repository';
import { AUDIT_ENTITIES } from './entities';
import { LoginRecorder } from './login-recorder';
import { LogoutRecorder } from './logout-recorder';

@Module({
  imports: [TypeOrmModule.forFeature(AUDIT_ENTITIES)],
  providers: [AuditRepository, LoginRecorder, LogoutRecorder],
  exports: [LoginRecorder, LogoutRecorder],
})
export class AuditModule {}
