import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS } from '@app/redis';
import { ClientContext, Clock, inertText, TimeoutError, withTimeout } from '@app/common';
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
/** Redis key prefix of the window shared by every node; the key's lifetime is the window. */
export const NO_SESSION_KEY_PREFIX = 'decisioning:logout-no-session:';
/** How long a Redis answer may take before this node decides alone. */
const SHARED_WINDOW_TIMEOUT_MS = 250;

/**
 * THE writer of UserLogout rows: logout (ReasonId 1), Revoke Sessions (2) and password change (3) all go
 * through it. Every text column is cut to its bound and stripped of control characters (spec: UserLogout
 * rule 2), so a hostile user agent is stored as inert data. Rows are only inserted, never purged.
 */
@Injectable()
export class LogoutRecorder {
  private readonly logger = new Logger('LogoutRecorder');
  private readonly noSession = new AddressWindow(NO_SESSION_WINDOW_MS, NO_SESSION_ADDRESS_CAPACITY);

  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

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
   * A logout with no usable session (OutcomeId 2: only cookies were cleared). Written at most once a minute
   * per remote address; returns whether a row was written.
   */
  async recordNoSession(client: ClientContext, message: string): Promise<boolean> {
    const address = client.clientIp ?? '';
    if (!this.noSession.admit(address, this.clock.now())) return false;
    if (!(await this.admitAcrossNodes(address))) return false;
    await this.record(client, {
      userName: null,
      tenantId: null,
      reason: LogoutReason.UserLoggedOut,
      outcome: LogoutOutcome.CookiesCleared,
      message,
    });
    return true;
  }

  /**
   * With Redis, the window is shared by every node: the first node to SET the address's key (NX, expiring
   * after the window) records the row, the others do not. This node's own window has already admitted the
   * address, so Redis only ever sees addresses this node would record. When Redis cannot answer (down, or
   * slower than SHARED_WINDOW_TIMEOUT_MS) the node decides alone, as without Redis: the row is written
   * rather than lost, and the limit falls back to once a minute per address per node.
   */
  private async admitAcrossNodes(address: string): Promise<boolean> {
    if (!this.redis) return true;
    try {
      const answer = await withTimeout(
        this.redis.set(`${NO_SESSION_KEY_PREFIX}${address}`, '1', 'PX', NO_SESSION_WINDOW_MS, 'NX'),
        SHARED_WINDOW_TIMEOUT_MS,
        'Redis SET',
      );
      return answer === 'OK';
    } catch (err) {
      this.logger.warn(
        err instanceof TimeoutError
          ? 'Redis did not answer in time: this node applies the no-session window alone'
          : `Redis refused the shared no-session window (${err instanceof Error ? err.message : String(err)}): this node applies it alone`,
      );
      return true;
    }
  }
}
