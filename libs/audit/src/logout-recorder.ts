import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { clientAddresses, Clock, inertText, userAgentOf } from '@app/common';
import { AuditRepository } from './audit.repository';
import { AUDIT_LIMITS, LogoutOutcome, LogoutReason } from './audit-types';

export interface SessionCut {
  userName: string | null;
  tenantId: number | null;
  reason: LogoutReason;
  outcome: LogoutOutcome;
  /** ms since epoch */
  sessionStartedAt?: number | null;
  revokedByUser?: string | null;
  message?: string | null;
}

/**
 * Writes one UserLogout row per session cut. First version (sign-in issue: password change); the sessions
 * issue adds logout, Revoke Sessions and the once-a-minute rule for callers without a session.
 */
@Injectable()
export class LogoutRecorder {
  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
  ) {}

  async record(request: Request | null, cut: SessionCut): Promise<void> {
    const { remoteIp, localIp } = request ? clientAddresses(request) : { remoteIp: null, localIp: null };
    await this.repo.insertLogout({
      UserName: inertText(cut.userName, AUDIT_LIMITS.userName),
      TenantRegistryId: cut.tenantId,
      CreatedDate: new Date(this.clock.now()),
      ReasonId: cut.reason,
      OutcomeId: cut.outcome,
      RemoteIp: inertText(remoteIp, AUDIT_LIMITS.ip),
      LocalIp: inertText(localIp, AUDIT_LIMITS.ip),
      UserAgent: request ? inertText(userAgentOf(request), AUDIT_LIMITS.userAgent) : null,
      SessionStartedDate:
        cut.sessionStartedAt === undefined || cut.sessionStartedAt === null
          ? null
          : new Date(cut.sessionStartedAt),
      RevokedByUser: inertText(cut.revokedByUser, AUDIT_LIMITS.userName),
      Message: inertText(cut.message, AUDIT_LIMITS.message),
    });
  }
}
