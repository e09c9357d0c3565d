import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { SESSIONS_SETTINGS, type SessionsSettings } from '@app/config';
import { Actor } from '@app/access';
import { ClientContext, type IfMatch, versionedWrite } from '@app/http-edge';
import { Clock } from '@app/runtime';
import { AdminEvents, LogoutOutcome, LogoutReason, LogoutRecorder } from '@app/audit';
import {
  ActorService,
  IdentityAuthService,
  IdentityEvents,
  type SessionCutCause,
  type SessionsCut,
  type SessionsRevoked,
} from '@app/identity';
import { CacheEventSink, createChannelSubscriber, REDIS } from '@app/redis';
import { StreamRegistry } from './stream-registry';

/** The UserLogout reason and message of each administrator action that ends a user's sessions. */
const ADMINISTRATOR_CUTS: Record<SessionCutCause, { reason: LogoutReason; message: string }> = {
  'password-reset': { reason: LogoutReason.PasswordChanged, message: 'Password reset by an administrator.' },
  deactivated: {
    reason: LogoutReason.AdministratorRevoked,
    message: 'User deactivated by an administrator.',
  },
};

/** Redis channel of session revocations; every node closes the user's streams at once. */
export const SESSION_CHANNEL = 'decisioning:sessions';

export interface SessionRevocationMessage {
  v: 1;
  event: 'revoked';
  userGuid: string;
  /** ms since epoch: sessions that started before it have ended. */
  validFrom: number;
  origin: string;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseRevocation(payload: string): SessionRevocationMessage | null {
  try {
    const m = JSON.parse(payload) as Partial<SessionRevocationMessage>;
    if (
      m.v === 1 &&
      m.event === 'revoked' &&
      typeof m.userGuid === 'string' &&
      GUID.test(m.userGuid) &&
      typeof m.validFrom === 'number' &&
      Number.isSafeInteger(m.validFrom) &&
      typeof m.origin === 'string'
    ) {
      return m as SessionRevocationMessage;
    }
  } catch {
    /* not ours */
  }
  return null;
}

/**
 * Ends sessions: moves TokensValidFrom forward (every node refuses the old tokens on their next request,
 * because every request reads it), closes this node's streams of the user, and publishes the revocation on
 * Redis so the other nodes close theirs at once; their periodic stream check is the safety net.
 */
@Injectable()
export class SessionRevocationService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Sessions');
  private subscriber?: Redis;
  private stopListening?: () => void;

  constructor(
    @Inject(SESSIONS_SETTINGS.token) private readonly settings: SessionsSettings,
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly sink: CacheEventSink,
    private readonly identity: IdentityAuthService,
    private readonly actors: ActorService,
    private readonly identityEvents: IdentityEvents,
    private readonly streams: StreamRegistry,
    private readonly recorder: LogoutRecorder,
    private readonly clock: Clock,
    private readonly trail: AdminEvents,
  ) {}

  onApplicationBootstrap(): void {
    // Password change (auth feature) revokes through the database itself and tells us here.
    const stopRevoked = this.identityEvents.on('sessionsRevoked', (e) => this.revokedEverywhere(e));
    // An administrator's password reset or deactivation (identity feature) has already moved
    // TokensValidFrom in its own statement: close the streams everywhere and write the UserLogout row before
    // the administrator's answer (the identity service waits for this listener).
    const stopCut = this.identityEvents.on('sessionsCut', (cut) => this.recordAdministratorCut(cut));
    this.stopListening = () => {
      stopRevoked();
      stopCut();
    };
    if (this.settings.RedisConnectionString) this.subscribe();
  }

  onModuleDestroy(): void {
    this.stopListening?.();
    this.subscriber?.disconnect();
  }

  /**
   * Moves the user's TokensValidFrom to `validFrom` (forward only) and closes their streams everywhere.
   * Throws when the database write fails.
   */
  async revoke(userId: number, userGuid: string, validFrom: number): Promise<void> {
    await this.identity.revokeSessions(userId, validFrom);
    this.revokedEverywhere({ userGuid, validFrom });
  }

  /**
   * spec: Authentication endpoints, POST /api/UserRegistry/RevokeTokens/{id} — a user of the caller's OWN
   * tenant (another tenant's user or none: the same 404), every session ended, UserLogout ReasonId 2. Once the
   * revocation committed the sessions have ended, so the answer is a success (spec: Errors, Revoke Sessions
   * succeeds: 204) whatever becomes of the UserLogout row: it is written within
   * LogoutRevocationTimeoutMilliseconds, as logout writes its rows, and a failure is logged at ERROR.
   */
  async revokeByAdministrator(
    actor: Actor,
    userGuid: string,
    client: ClientContext,
    ifMatch?: IfMatch,
  ): Promise<void> {
    const validFrom = this.clock.now();
    // Nobody logs out a user who holds a permission they lack (the rule of every action on a user); with
    // If-Match, only the version named (412 otherwise), in the statement itself.
    const user = await versionedWrite(
      ifMatch,
      () => this.actors.userInOwnTenant(actor, userGuid, { actingOn: true }),
      async (user, version) => {
        // Its AdminEvent row with the statement; the streams close once both are committed.
        const written = await this.trail.applied(
          actor,
          {
            target: { guid: user.guid, name: user.name, tenantId: actor.tenantId },
            changes: [{ field: 'TokensValidFrom', old: null, new: new Date(validFrom).toISOString() }],
          },
          async (tx) =>
            version === undefined
              ? (await this.identity.revokeSessions(user.id, validFrom, tx), true)
              : this.identity.revokeSessions(user.id, validFrom, tx, version),
        );
        return written ? user : undefined;
      },
    );
    this.revokedEverywhere({ userGuid: user.guid, validFrom });
    this.logger.log({ user: user.name, by: actor.userName }, 'Sessions revoked by an administrator');
    await this.recorder.recordWithin(
      client,
      {
        userName: user.name,
        tenantId: actor.tenantId,
        reason: LogoutReason.AdministratorRevoked,
        outcome: LogoutOutcome.Revoked,
        revokedByUser: actor.userName,
        message: 'Sessions revoked by an administrator.',
      },
      this.settings.LogoutRevocationTimeoutMilliseconds,
    );
  }

  /**
   * The streams and the UserLogout row of sessions an administrator's action ended: ReasonId 3 for a password
   * reset (spec: a password change), ReasonId 2 for a deactivation (an administrator revoked the user's tokens;
   * the spec has no other reason), naming the administrator either way.
   */
  private async recordAdministratorCut(cut: SessionsCut): Promise<void> {
    this.revokedEverywhere({ userGuid: cut.userGuid, validFrom: cut.at });
    const { reason, message } = ADMINISTRATOR_CUTS[cut.cause];
    await this.recorder.recordWithin(
      cut.client,
      {
        userName: cut.userName,
        tenantId: cut.tenantId,
        reason,
        outcome: LogoutOutcome.Revoked,
        revokedByUser: cut.by,
        message,
      },
      this.settings.LogoutRevocationTimeoutMilliseconds,
    );
  }

  /** Closes this node's streams of the user and tells the other nodes; never throws. */
  revokedEverywhere(e: SessionsRevoked): void {
    this.streams.closeSessionsOf(e.userGuid, e.validFrom);
    if (!this.redis) return;
    const message: SessionRevocationMessage = {
      v: 1,
      event: 'revoked',
      userGuid: e.userGuid,
      validFrom: e.validFrom,
      origin: this.settings.InstanceName,
    };
    // Reliable but not guaranteed: a lost message leaves the periodic check to close the other nodes' streams.
    this.redis
      .publish(SESSION_CHANNEL, JSON.stringify(message))
      .catch((err: unknown) => this.logger.warn({ err }, 'Publishing a session revocation failed'));
  }

  private subscribe(): void {
    this.subscriber = createChannelSubscriber(
      this.settings,
      this.sink,
      `${this.settings.InstanceName}:sessions`,
      SESSION_CHANNEL,
      {
        message: (payload) => {
          const m = parseRevocation(payload);
          // Also our own messages: closing twice is harmless, and InstanceName may be shared by nodes on one host.
          if (m) this.streams.closeSessionsOf(m.userGuid, m.validFrom);
        },
        // Messages sent while this node was away are lost: re-check every stream after a reconnect.
        reconnected: () =>
          void this.streams
            .check()
            .catch((err: unknown) => this.logger.error({ err }, 'Stream check after reconnect failed')),
        subscribeFailed: (err) => this.logger.error({ err }, 'Subscribe failed'),
      },
    );
  }
}
