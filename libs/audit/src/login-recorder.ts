import { Injectable } from '@nestjs/common';
import { ClientContext } from '@app/http-edge';
import { Clock } from '@app/runtime';
import { inertText } from '@app/input-rules';
import { AuditRepository } from './audit.repository';
import { AUDIT_LIMITS, AuthenticationType, carriesFailureMessage, FailureType } from './audit-types';

export interface LoginAttempt {
  /** The user name as typed. */
  userName: string | null | undefined;
  /** Tenant of the matched user, when one matched. */
  tenantId: number | null;
  authenticationType: AuthenticationType;
  /** undefined for a successful sign-in. */
  failureType?: FailureType;
  /** spec: UserLogin rule 2 — only for FailureTypeId 7 to 10 (carriesFailureMessage). */
  failureMessage?: string | null;
}

/** Writes one UserLogin row per sign-in attempt (spec: UserLogin rule 1). */
@Injectable()
export class LoginRecorder {
  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
  ) {}

  async record(client: ClientContext, attempt: LoginAttempt): Promise<void> {
    await this.repo.insertLogin({
      CreatedUser: inertText(attempt.userName ?? '', AUDIT_LIMITS.userName) ?? '',
      TenantRegistryId: attempt.tenantId,
      RemoteIp: inertText(client.clientIp, AUDIT_LIMITS.ip),
      LocalIp: inertText(client.localIp, AUDIT_LIMITS.ip),
      UserAgent: inertText(client.userAgent, AUDIT_LIMITS.userAgent),
      AuthenticationTypeId: attempt.authenticationType,
      Failed: attempt.failureType !== undefined,
      FailureTypeId: attempt.failureType ?? null,
      FailureMessage: carriesFailureMessage(attempt.failureType)
        ? inertText(attempt.failureMessage, AUDIT_LIMITS.message)
        : null,
      CreatedDate: new Date(this.clock.now()),
    });
  }
}
