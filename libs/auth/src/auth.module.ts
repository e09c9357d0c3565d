import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { SIGN_IN_SETTINGS, type SignInSettings } from '@app/config';
import { REDIS } from '@app/redis';
import { APP_GUARD } from '@nestjs/core';
import { AuditModule } from '@app/audit';
import { IdentityModule } from '@app/identity';
import { ApiKeysModule } from '@app/api-keys';
import { PassportModule } from '@nestjs/passport';
import { AuthenticationController } from './authentication.controller';
import { PrecedenceGuard } from './precedence.guard';
import { NegotiateService } from './negotiate.service';
import { PasswordTransport } from './password-transport';
import { SessionCookies } from './session-cookies';
import { SessionTokens } from './session-tokens';
import { SessionUserReader } from './session-user-reader';
import { ChangePasswordAuditFilter, PasscodeAuditFilter, SignInAuditFilter } from './sign-in-audit.filter';
import { SignInService } from './sign-in.service';
import {
  SignInRateLimitGuard,
  SignInRateLimitStorage,
  SignInRequestGuard,
  signInRateLimits,
} from './sign-in-limits.guard';
import { OAuthController } from './oauth/oauth.controller';
import { OAuthSignInService } from './oauth/oauth-sign-in.service';
import { HttpSecondFactorProvider } from './second-factor/http-second-factor-provider';
import { MockSecondFactorController } from './second-factor/mock-second-factor.controller';
import { PasscodeTokens } from './second-factor/passcode-tokens';
import { SecondFactorProvider } from './second-factor/second-factor-provider';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { AppPassport } from './strategies/app-passport';
import { CREDENTIAL_CARRIERS } from './strategies/credential-carriers';
import { SPEC_CREDENTIAL_CARRIERS } from './strategies/spec-carriers';
import { NegotiateStrategy } from './strategies/negotiate.strategy';
import { BearerJwtStrategy, CookieJwtStrategy, SessionJwtValidation } from './strategies/session-jwt.strategies';

@Module({
  imports: [
    IdentityModule,
    AuditModule,
    ApiKeysModule,
    PassportModule.register({ session: false }),
    ThrottlerModule.forRootAsync({
      inject: [SIGN_IN_SETTINGS.token, REDIS],
      useFactory: (settings: SignInSettings, redis: Redis | null) =>
        signInRateLimits(settings, new SignInRateLimitStorage(redis)),
    }),
  ],
  controllers: [AuthenticationController, OAuthController, MockSecondFactorController],
  providers: [
    // This application's own Passport, and one strategy per credential and per sign-in scheme
    // (docs/authentication.md, "Strategies").
    AppPassport,
    ApiKeyStrategy,
    SessionJwtValidation,
    BearerJwtStrategy,
    CookieJwtStrategy,
    NegotiateStrategy,
    // THE ordered carrier list (spec: Credentials and precedence 1): a new carrier is added here, in order.
    { provide: CREDENTIAL_CARRIERS, useValue: SPEC_CREDENTIAL_CARRIERS },
    PrecedenceGuard,
    // The only global guard: it picks exactly one strategy by the first carrier present.
    { provide: APP_GUARD, useExisting: PrecedenceGuard },
    SessionTokens,
    SessionUserReader,
    SessionCookies,
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
  exports: [PrecedenceGuard, SessionTokens, SessionCookies],
})
export class AuthModule {}
