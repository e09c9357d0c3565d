import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { clientAddresses, Clock, inertText, userAgentOf } from '@app/common';
import { AddressWindow } from './address-window';
import { AuditRepository } from './audit.repository';
import { AUDIT_LIMITS, LogoutOutcome, LogoutReason } from './audit-types';

export interface SessionCut {
  userName: string | null;
  tenantId: number | null;
  reason: LogoutReason;
  outcome: LogoutOutcome;
  /** ms since epoch */
  sessionStartedAt?: number | null;
  /** spec: UserLogout — for an administrator revocation, who cut it. */
  revokedByUser?: string | null;
  message?: string | null;
}

/** spec: UserLogout rule 1 and Limits — callers with no session: at most one row a minute per address. */
export const NO_SESSION_WINDOW_MS = 60_000;
/** Addresses remembered for that rule; the memory cannot grow past it whatever callers send. */
export const NO_SESSION_ADDRESS_CAPACITY = 10_000;

/**
 * THE writer of UserLogout rows: logout (ReasonId 1), Revoke Sessions (2) and password change (3) all go
 * through it. Every text column is cut to its bound and stripped of control characters (spec: UserLogout
 * rule 2), so a hostile user agent is stored as inert data. Rows are only inserted, never purged.
 */
@Injectable()
export class LogoutRecorder {
  private readonly noSession = new AddressWindow(NO_SESSION_WINDOW_MS, NO_SESSION_ADDRESS_CAPACITY);

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
      Message: inertText(cut.message, AUDIT_LIMITS.logoutMessage),
    });
  }

  /**
   * A logout with no usable session (OutcomeId 2: only cookies were cleared). Written at most once a minute
   * per remote address; returns whether a row was written.
   */
  async recordNoSession(request: Request, message: string): Promise<boolean> {
    const { remoteIp } = clientAddresses(request);
    if (!this.noSession.admit(remoteIp ?? '', this.clock.now())) return false;
    await this.record(request, {
      userName: null,
      tenantId: null,
      reason: LogoutReason.UserLoggedOut,
      outcome: LogoutOutcome.CookiesCleared,
      message,
    });
    return true;
  }
}
