import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS } from '@app/redis';
import { ClientContext } from '@app/http-edge';
import { Clock, withTimeout } from '@app/runtime';
import { inertText } from '@app/input-rules';
import { shortReason } from '@app/problems';
import { AuditRepository } from './audit.repository';
import { AUDIT_LIMITS, LogoutOutcome, LogoutReason } from './audit-types';
import { SharedWindow } from './shared-window';

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
/** Redis key prefix of the window shared by every node; the key's lifetime is the window. */
export const NO_SESSION_KEY_PREFIX = 'decisioning:logout-no-session:';
/**
 * THE writer of UserLogout rows: logout (ReasonId 1), Revoke Sessions (2) and password change (3) all go
 * through it. Every text column is cut to its bound and stripped of control characters (spec: UserLogout
 * rule 2), so a hostile user agent is stored as inert data. Rows are only inserted, never purged.
 */
@Injectable()
export class LogoutRecorder {
  /**
   * With Redis, the window is shared by every node (the first node to SET the address's key records the row);
   * when Redis cannot answer the node decides alone, so the row is written rather than lost and the limit falls
   * back to once a minute per address per node.
   */
  private readonly noSession: SharedWindow;
  private readonly logger = new Logger('Logout');

  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
    @Inject(REDIS) redis: Redis | null,
  ) {
    this.noSession = new SharedWindow(
      redis,
      NO_SESSION_KEY_PREFIX,
      NO_SESSION_WINDOW_MS,
      NO_SESSION_ADDRESS_CAPACITY,
    );
  }

  /** `client`: the request that cut the session (null when none did, e.g. a Redis message). */
  async record(client: ClientContext | null, cut: SessionCut): Promise<void> {
    await this.repo.insertLogout({
      UserName: inertText(cut.userName, AUDIT_LIMITS.userName),
      TenantRegistryId: cut.tenantId,
      CreatedDate: new Date(this.clock.now()),
      ReasonId: cut.reason,
      OutcomeId: cut.outcome,
      RemoteIp: inertText(client?.clientIp, AUDIT_LIMITS.ip),
      LocalIp: inertText(client?.localIp, AUDIT_LIMITS.ip),
      UserAgent: inertText(client?.userAgent, AUDIT_LIMITS.userAgent),
      SessionStartedDate:
        cut.sessionStartedAt === undefined || cut.sessionStartedAt === null
          ? null
          : new Date(cut.sessionStartedAt),
      RevokedByUser: inertText(cut.revokedByUser, AUDIT_LIMITS.userName),
      Message: inertText(cut.message, AUDIT_LIMITS.logoutMessage),
    });
  }

  /**
   * The row of a cut that has already happened (the sessions ended, or the logout's answer is decided): written
   * within `timeoutMs`, and a failure or a timeout only logged at ERROR with a short reason, never thrown, so a
   * slow or failing audit table never changes the answer. A write that timed out may still land later.
   * Returns whether the row was written in time.
   */
  async recordWithin(client: ClientContext | null, cut: SessionCut, timeoutMs: number): Promise<boolean> {
    try {
      await withTimeout(this.record(client, cut), timeoutMs, 'Writing the UserLogout row');
      return true;
    } catch (err) {
      this.logger.error(
        { err: shortReason(err), reasonId: cut.reason, outcome: cut.outcome },
        'A UserLogout row could not be written',
      );
      return false;
    }
  }

  /**
   * A logout with no usable session (OutcomeId 2: only cookies were cleared). Written at most once a minute
   * per remote address; returns whether a row was written.
   */
  async recordNoSession(client: ClientContext, message: string): Promise<boolean> {
    const address = client.clientIp ?? '';
    if (!(await this.noSession.admit(address, this.clock.now()))) return false;
    await this.record(client, {
      userName: null,
      tenantId: null,
      reason: LogoutReason.UserLoggedOut,
      outcome: LogoutOutcome.CookiesCleared,
      message,
    });
    return true;
  }
}
