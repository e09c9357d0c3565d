import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SESSIONS_SETTINGS, type SessionsSettings } from '@app/config';
import { Actor, CredentialKind } from '@app/access';
import { Clock, Lifecycle, withTimeout } from '@app/runtime';
import { IdentityAuthService } from '@app/identity';

/**
 * Where a stream's events go: the writable body of an answer whose event-stream headers the controller has
 * already sent (StreamController). A plain writable, no HTTP object.
 */
export interface EventStreamSink {
  write(chunk: string): boolean;
  end(): void;
  destroy(): void;
  readonly writableLength: number;
  on(event: 'close', listener: () => void): unknown;
}

/** Who a stream belongs to: what an event publisher may filter on. */
export interface StreamAudience {
  userGuid: string;
  userName: string;
  tenantId: number;
  tenantGuid: string;
  landlord: boolean;
  credential: CredentialKind;
  /** Session start (ms) for JWT streams; API-key streams have none (spec: API keys 5). */
  sessionStartedAt?: number;
}

/** Why a stream was closed by the server (sent as the last `closed` event). */
export type StreamCloseReason =
  'revoked' | 'session-ended' | 'credential-refused' | 'check-failed' | 'slow-consumer' | 'shutdown';

/** An event name is one SSE field value: no line breaks, nothing odd. */
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
/** A consumer that lets more than this pile up unread is cut off instead of growing our memory. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** One re-check of a user's state waits at most this long for the database. */
const CHECK_READ_TIMEOUT_MS = 5_000;

class OpenStream {
  closed = false;

  constructor(
    readonly id: number,
    readonly audience: StreamAudience,
    private readonly res: EventStreamSink,
    /** For API-key streams: is the key still active? */
    readonly recheck: (() => Promise<boolean>) | undefined,
    private readonly onEnded: (stream: OpenStream) => void,
  ) {
    res.on('close', () => {
      this.closed = true;
      this.onEnded(this);
    });
  }

  send(event: string, data: unknown): boolean {
    if (this.closed) return false;
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      this.end('slow-consumer');
      return false;
    }
    return true;
  }

  /** Ends the response; idempotent. */
  end(reason: StreamCloseReason): void {
    if (this.closed) return;
    this.closed = true;
    this.onEnded(this);
    try {
      if (reason !== 'slow-consumer')
        this.res.write(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
      this.res.end();
    } catch {
      this.res.destroy();
    }
  }
}

/**
 * This node's open streaming connections (server-sent events), per user. A stream ends:
 * - at once when its user's sessions are revoked here or on another node (through Redis), see
 *   closeSessionsOf();
 * - at the next check(), every RevokedSessionCheckInterval/Value, which re-reads the user's state and
 *   TokensValidFrom from the database and also ends streams past the absolute session lifetime (spec: Session
 *   (JWT), "valid (streaming connection)"). A check that cannot read the database closes the user's streams:
 *   fail closed, the client reconnects and is answered like any request.
 * A heartbeat event goes to every stream every StreamHeartbeatMilliseconds (at most 15 s).
 */
@Injectable()
export class StreamRegistry implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Streams');
  private readonly byUser = new Map<string, Set<OpenStream>>();
  /**
   * Revocations seen during the last two check intervals, so a stream whose request passed the guard just
   * before a revocation but registers just after it is closed at once. Pruned by every check.
   */
  private readonly recentRevocations = new Map<string, { validFrom: number; seenAt: number }>();
  private nextId = 1;
  private heartbeat?: NodeJS.Timeout;
  private checker?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    @Inject(SESSIONS_SETTINGS.token) private readonly settings: SessionsSettings,
    private readonly identity: IdentityAuthService,
    private readonly clock: Clock,
    private readonly lifecycle: Lifecycle,
  ) {}

  onApplicationBootstrap(): void {
    // Graceful shutdown: the server stops accepting and waits for open answers, so the streams end first.
    this.lifecycle.onStopAccepting(() => this.endAll());
    this.heartbeat = setInterval(() => this.beat(), this.settings.StreamHeartbeatMilliseconds);
    this.heartbeat.unref();
    this.checker = setInterval(
      () => void this.check().catch((err: unknown) => this.logger.error({ err }, 'Stream check failed')),
      this.settings.revokedSessionCheckMs,
    );
    this.checker.unref();
  }

  /** Open streams would hold the HTTP server open: end them before it closes. */
  onModuleDestroy(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.checker);
    this.endAll();
  }

  private endAll(): void {
    for (const streams of this.byUser.values()) for (const s of streams) s.end('shutdown');
    this.byUser.clear();
  }

  /** Keeps `res`, an open event stream, for `actor` until the client leaves or the stream is closed. */
  open(actor: Actor, res: EventStreamSink, recheck?: () => Promise<boolean>): void {
    const audience: StreamAudience = {
      userGuid: actor.userGuid,
      userName: actor.userName,
      tenantId: actor.tenantId,
      tenantGuid: actor.tenantGuid,
      landlord: actor.landlord,
      credential: actor.credential,
      ...(actor.credential !== 'api-key' && actor.sessionStartedAt !== undefined
        ? { sessionStartedAt: actor.sessionStartedAt }
        : {}),
    };
    const stream = new OpenStream(this.nextId++, audience, res, recheck, (s) => this.remove(s));
    let streams = this.byUser.get(audience.userGuid);
    if (!streams) this.byUser.set(audience.userGuid, (streams = new Set()));
    streams.add(stream);
    stream.send('open', {
      heartbeatMilliseconds: this.settings.StreamHeartbeatMilliseconds,
      at: new Date(this.clock.now()).toISOString(),
    });
    const recent = this.recentRevocations.get(audience.userGuid);
    if (recent && this.endedBy(stream, recent.validFrom)) stream.end('revoked');
  }

  private remove(stream: OpenStream): void {
    const set = this.byUser.get(stream.audience.userGuid);
    set?.delete(stream);
    if (set && set.size === 0) this.byUser.delete(stream.audience.userGuid);
  }

  /** Open streams on this node, of one user or of everybody. */
  count(userGuid?: string): number {
    if (userGuid !== undefined) return this.byUser.get(userGuid)?.size ?? 0;
    let n = 0;
    for (const s of this.byUser.values()) n += s.size;
    return n;
  }

  /**
   * Closes this node's streams of sessions that started before `validFrom` (ms): the user's JWT streams.
   * API-key streams stay: keys are not affected by logout or Revoke Sessions (spec: API keys 5).
   */
  closeSessionsOf(userGuid: string, validFrom: number): number {
    this.recentRevocations.set(userGuid, {
      validFrom: Math.max(validFrom, this.recentRevocations.get(userGuid)?.validFrom ?? 0),
      seenAt: Date.now(),
    });
    let closed = 0;
    for (const stream of [...(this.byUser.get(userGuid) ?? [])]) {
      if (this.endedBy(stream, validFrom)) {
        stream.end('revoked');
        closed++;
      }
    }
    return closed;
  }

  /** Sends one event to every open stream whose audience passes `filter`; returns how many it reached. */
  broadcast(event: string, data: unknown, filter: (audience: StreamAudience) => boolean): number {
    if (!EVENT_NAME.test(event)) throw new Error(`Not a valid stream event name: ${event}`);
    let reached = 0;
    for (const streams of this.byUser.values()) {
      for (const stream of [...streams]) if (filter(stream.audience) && stream.send(event, data)) reached++;
    }
    return reached;
  }

  /**
   * The periodic re-check (also run at once after a Redis reconnect, since messages sent while a node was
   * away are lost). Concurrent calls share one run.
   */
  check(): Promise<void> {
    if (!this.checking) {
      this.checking = this.runCheck().finally(() => (this.checking = undefined));
    }
    return this.checking;
  }

  private async runCheck(): Promise<void> {
    const keepSince = Date.now() - 2 * this.settings.revokedSessionCheckMs;
    for (const [guid, r] of this.recentRevocations)
      if (r.seenAt < keepSince) this.recentRevocations.delete(guid);
    const now = this.clock.now();
    await Promise.all(
      [...this.byUser.entries()].map(async ([userGuid, set]) => {
        const streams = [...set];
        const jwtStreams = streams.filter((s) => s.audience.credential !== 'api-key');
        for (const s of streams.filter((x) => x.audience.credential === 'api-key')) {
          const ok = await (s.recheck?.() ?? Promise.resolve(false)).catch(() => false);
          if (!ok) s.end('credential-refused');
        }
        if (!jwtStreams.length) return;
        let user;
        try {
          user = await withTimeout(
            this.identity.sessionUser(userGuid),
            CHECK_READ_TIMEOUT_MS,
            'session re-check',
          );
        } catch (err) {
          this.logger.warn({ err, userGuid }, 'Stream session re-check could not read the user: closing');
          for (const s of jwtStreams) s.end('check-failed');
          return;
        }
        for (const s of jwtStreams) {
          const started = s.audience.sessionStartedAt ?? Number.NEGATIVE_INFINITY;
          // a password lock ends no session (docs/SECURITY.md), nor its streams
          if (!user || !user.active) s.end('credential-refused');
          else if (user.tokensValidFrom !== null && started < user.tokensValidFrom) s.end('revoked');
          else if (now - started > this.settings.sessionAbsoluteLifetimeMs) s.end('session-ended');
        }
      }),
    );
  }

  private endedBy(stream: OpenStream, validFrom: number): boolean {
    return stream.audience.credential !== 'api-key' && (stream.audience.sessionStartedAt ?? 0) < validFrom;
  }

  private beat(): void {
    const at = new Date(this.clock.now()).toISOString();
    for (const streams of this.byUser.values()) for (const s of [...streams]) s.send('heartbeat', { at });
  }
}
