import { Inject, Injectable, Logger } from '@nestjs/common';
import { SESSIONS_SETTINGS, type SessionsSettings } from '@app/config';
import { ClientContext } from '@app/http-edge';
import { Clock, TimeoutError, withTimeout } from '@app/runtime';
import { shortReason } from '@app/problems';
import { LogoutOutcome, LogoutReason, LogoutRecorder, type SessionCut } from '@app/audit';
import { IdentityAuthService, SessionUser } from '@app/identity';
import { PresentedCredential, SessionClaims, SessionTokens } from '@app/auth';
import { SessionRevocationService } from './session-revocation.service';

export const LOGOUT_WARNING_HEADER = 'X-Service-Logout-Warning';
export const REVOCATION_FAILED = 'revocation-failed';

/** What logout did; only the warning header (RevocationFailed) is visible to the caller. */
export type LogoutResult = LogoutOutcome;

/**
 * spec: Logout behaviour. Fails closed: whatever the credential state, both cookies are deleted and the
 * answer is 200. A usable session (bearer or cookie JWT, in the one order of precedence) is revoked for
 * every node; an x-api-key request is never a browser session (spec: API keys 6).
 */
@Injectable()
export class LogoutService {
  private readonly logger = new Logger('Logout');

  constructor(
    @Inject(SESSIONS_SETTINGS.token) private readonly settings: SessionsSettings,
    private readonly tokens: SessionTokens,
    private readonly identity: IdentityAuthService,
    private readonly revocation: SessionRevocationService,
    private readonly recorder: LogoutRecorder,
    private readonly clock: Clock,
  ) {}

  /**
   * Ends the presented session (the controller has already deleted the cookies: spec: Logout behaviour 1).
   * `carrier`: the request's credential in the one order of precedence; `client`: for the UserLogout row.
   */
  async logout(carrier: PresentedCredential, client: ClientContext): Promise<LogoutResult> {
    if (carrier.kind === 'api-key')
      return this.noSession(client, 'An x-api-key request is not a browser session.');
    if (carrier.kind === 'none') return this.noSession(client, 'No session was presented.');
    const claims = carrier.value ? this.tokens.verify(carrier.value) : null;
    if (!claims)
      return this.noSession(client, `The ${carrier.kind} token is malformed, expired or not ours.`);

    const timeoutMs = this.settings.LogoutRevocationTimeoutMilliseconds;
    let user: SessionUser | null;
    try {
      user = await withTimeout(this.identity.sessionUser(claims.sub), timeoutMs, 'Reading the session user');
    } catch (err) {
      // A well-signed, unexpired token whose state cannot be read: it may be live, and it was not revoked.
      return this.failed(client, claims, null, err);
    }
    if (!user) return this.noSession(client, 'The session belongs to no current user.');
    if (user.tokensValidFrom !== null && claims.sst < user.tokensValidFrom)
      return this.noSession(client, 'The session had already been revoked.');

    // Inactive or locked users are revoked too: their tokens would work again once reactivated or unlocked.
    // At least one millisecond past the session start, so the cut session ends even when this node's clock
    // lags the node that started it.
    const validFrom = Math.max(this.clock.now(), claims.sst + 1);
    try {
      await withTimeout(
        this.revocation.revoke(user.id, user.guid, validFrom),
        timeoutMs,
        'Revoking the sessions',
      );
    } catch (err) {
      return this.failed(client, claims, user, err);
    }
    await this.write(client, {
      userName: user.name,
      tenantId: user.tenantId,
      reason: LogoutReason.UserLoggedOut,
      outcome: LogoutOutcome.Revoked,
      sessionStartedAt: claims.sst,
      message: `Logged out (${carrier.kind}).`,
    });
    return LogoutOutcome.Revoked;
  }

  private async noSession(client: ClientContext, message: string): Promise<LogoutResult> {
    try {
      await withTimeout(
        this.recorder.recordNoSession(client, message),
        this.settings.LogoutRevocationTimeoutMilliseconds,
        'Writing the UserLogout row',
      );
    } catch (err) {
      this.logger.warn({ err: shortReason(err) }, 'A UserLogout row (no session) could not be written');
    }
    return LogoutOutcome.CookiesCleared;
  }

  /** spec: Logout behaviour 3 — still logged out, with the warning header and the reason at ERROR. */
  private async failed(
    client: ClientContext,
    claims: SessionClaims,
    user: SessionUser | null,
    err: unknown,
  ): Promise<LogoutResult> {
    const reason = shortReason(err);
    this.logger.error({ userGuid: claims.sub, reason }, 'Logout could not revoke the session');
    await this.write(client, {
      userName: user?.name ?? null,
      tenantId: user?.tenantId ?? null,
      reason: LogoutReason.UserLoggedOut,
      outcome: LogoutOutcome.RevocationFailed,
      sessionStartedAt: claims.sst,
      // The detailed reason goes to the log only: tenant administrators read these rows.
      message:
        err instanceof TimeoutError
          ? 'Revocation failed: the database did not answer in time.'
          : 'Revocation failed: the database could not be written.',
    });
    return LogoutOutcome.RevocationFailed;
  }

  /** An audit row is attempted within the same time limit; its failure never changes the answer. */
  private async write(client: ClientContext, cut: SessionCut): Promise<void> {
    await this.recorder.recordWithin(client, cut, this.settings.LogoutRevocationTimeoutMilliseconds);
  }
}
