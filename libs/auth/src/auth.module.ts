import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { SETTINGS, Settings } from '@app/config';
import { REDIS } from '@app/redis';
import { APP_GUARD } from '@nestjs/core';
import { AuditModule } from '@app/audit';
import { IdentityModule } from '@app/identity';
import { ApiKeysModule } from '@app/api-keys';
import { ApiKeyServiceValidator } from './api-key-service-validator';
import { ApiKeyValidator } from './api-key-validator';
import { AuthGuard } from './auth.guard';
import { AuthenticationController } from './authentication.controller';
import { CredentialResolver } from './credential-resolver';
import { NegotiateService } from './negotiate.service';
import { PasswordTransport } from './password-transport';
import { SessionCookies } from './session-cookies';
import { SessionCredentialResolver } from './session-credential-resolver';
import { SessionEvents } from './session-events';
import { SessionTokens } from './session-tokens';
import { SessionUserReader } from './session-user-reader';
import { ChangePasswordAuditFilter, PasscodeAuditFilter, SignInAuditFilter } from './sign-in-audit.filter';
import { SignInService } from './sign-in.service';
import {
  SignInRateLimitGuard,
  SignInRateLimitStorage,
  SignInRequestGuard,
  signInRateLimits,
} from './sign-in-limits';
import { OAuthController } from './oauth/oauth.controller';
import { OAuthSignInService } from './oauth/oauth-sign-in.service';
import { HttpSecondFactorProvider } from './second-factor/http-second-factor-provider';
import { MockSecondFactorController } from './second-factor/mock-second-factor.controller';
import { PasscodeTokens } from './second-factor/passcode-tokens';
import { SecondFactorProvider } from './second-factor/second-factor-provider';

@Module({
  imports: [
    IdentityModule,
    AuditModule,
    ApiKeysModule,
    ThrottlerModule.forRootAsync({
      inject: [SETTINGS, REDIS],
      useFactory: (settings: Settings, redis: Redis | null) =>
        signInRateLimits(settings, new SignInRateLimitStorage(redis)),
    }),
  ],
  controllers: [AuthenticationController, OAuthController, MockSecondFactorController],
  providers: [
    { provide: ApiKeyValidator, useClass: ApiKeyServiceValidator },
    { provide: CredentialResolver, useClass: SessionCredentialResolver },
    { provide: APP_GUARD, useClass: AuthGuard },
    SessionTokens,
    SessionUserReader,
    SessionCookies,
    SessionEvents,
    PasswordTransport,
    SignInService,
    NegotiateService,
    SignInAuditFilter,
    PasscodeAuditFilter,
    ChangePasswordAuditFilter,
    OAuthSignInService,
    PasscodeTokens,
    SignInRateLimitGuard,
    SignInRequestGuard,
    // spec: Second factor 2 — one shipped provider; nothing in configuration selects another.
    { provide: SecondFactorProvider, useClass: HttpSecondFactorProvider },
  ],
  exports: [CredentialResolver, ApiKeyValidator, SessionTokens, SessionCookies, SessionEvents],
})
export class AuthModule {}
