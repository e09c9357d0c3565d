import { Inject, Injectable } from '@nestjs/common';
import { SESSIONS_SETTINGS, type SessionsSettings } from '@app/config';
import { Clock } from '@app/runtime';
import { IdentityAuthService } from '@app/identity';

export interface ActiveSessionsCount {
  count: number;
  startedAfter: number;
  at: number;
}

/**
 * Sessions that can still be used: the tokens are stateless, so what the service knows is each user's latest
 * session start (LastLoginDate) and the instant before which sessions are refused (TokensValidFrom). A session
 * counts while its absolute lifetime lasts and nothing cut it; its idle end is not known here.
 */
@Injectable()
export class ActiveSessions {
  constructor(
    private readonly identity: IdentityAuthService,
    private readonly clock: Clock,
    @Inject(SESSIONS_SETTINGS.token) private readonly settings: SessionsSettings,
  ) {}

  /** For a tenant (undefined: every tenant). */
  async count(tenantId: number | undefined): Promise<ActiveSessionsCount> {
    const at = this.clock.now();
    const startedAfter = at - this.settings.sessionAbsoluteLifetimeMs;
    return { count: await this.identity.countLiveSessions(tenantId, startedAfter), startedAfter, at };
  }
}
