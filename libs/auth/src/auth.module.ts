import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { CredentialResolver, DenyAllCredentialResolver } from './credential-resolver';

@Module({
  providers: [
    { provide: CredentialResolver, useClass: DenyAllCredentialResolver },
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [CredentialResolver],
})
export class AuthModule {}
