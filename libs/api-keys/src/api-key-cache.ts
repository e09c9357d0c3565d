import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import Redis from 'ioredis';
import { API_KEY_SETTINGS, type ApiKeySettings } from '@app/config';
import { Actor } from '@app/access';
import { ActorService, IdentityEvents, PrincipalsCeiling, PrincipalsChanged } from '@app/identity';
import { CacheEventSink, createChannelSubscriber, REDIS } from '@app/redis';
import { SERVICE_NAME, ServiceMeterProvider } from '@app/telemetry';
import { ApiKeyRepository } from './api-key.repository';
import {
  API_KEY_ACK_CHANNEL,
  ChangeAcknowledgements,
  type Delivery,
  isAckId,
  UNACKNOWLEDGED_CHANGES,
} from './change-acknowledgements';

export const API_KEY_CHANNEL = 'decisioning:api-keys';

/**
 * The shared-cache publish messages (spec: Events): one per key creation or revocation, and one when who may
 * act changed (users deactivated, deleted or moved to another role; a role's permissions; a tenant deleted).
 * `ack`: the id each node publishes on API_KEY_ACK_CHANNEL once it has applied the message.
 */
export type ApiKeyMessage = (
  | { v: 1; event: 'created' | 'revoked'; keyGuid: string; origin: string }
  | { v: 1; event: 'principals'; userIds: number[]; ceiling?: PrincipalsCeiling; origin: string }
  | { v: 1; event: 'reload'; origin: string }
) & { ack?: string };

interface Entry {
  keyGuid: string;
  actor: Actor;
}

/** A key as the database holds it: what every read of the cache works from. */
interface KeyRow {
  Guid: string;
  KeyHash: string;
  UserRegistryId: number;
}

/** Largest user list one message carries; a larger change is sent as a full reload. */
const MAX_MESSAGE_USERS = 1000;

/**
 * The in-memory set of active API keys, by SHA-256 hash, each with the Actor of its (active, not deleted)
 * user. Reloaded fully on start, every ApiKeyCacheRefreshIntervalMilliseconds and after every Redis
 * reconnect (publish/subscribe delivers at most once); single keys and users' changes are applied at once,
 * here and, through Redis messages, on every node.
 *
 * Ordering, so a race never revives a revoked key: every database read takes a sequence number before it starts, and a key's
 * state in memory is only ever replaced by the result of a LATER read. So a full reload whose snapshot was
 * read before a concurrent create or revoke cannot drop the new key or bring the revoked one back.
 */
@Injectable()
export class ApiKeyCache implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ApiKeyCache');
  private byHash = new Map<string, Entry>();
  /** Sequence number of the next database read. */
  private sequence = 0;
  /** The read the last applied full reload made: every key not in `decided` was decided by it. */
  private reloadedAt = -1;
  /** Keys decided by a read later than the last full reload, with that read's sequence number. */
  private decided = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private subscriber?: Redis;
  private reloading?: Promise<void>;
  private pendingReload = false;
  private stopListening?: () => void;
  private readonly acks: ChangeAcknowledgements;

  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly actors: ActorService,
    private readonly identityEvents: IdentityEvents,
    @Inject(API_KEY_SETTINGS.token) private readonly settings: ApiKeySettings,
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly sink: CacheEventSink,
    @Optional() meters?: ServiceMeterProvider,
  ) {
    this.acks = new ChangeAcknowledgements(
      redis,
      settings.ApiKeyChangeAckTimeoutMilliseconds,
      settings.InstanceName,
      meters?.provider.getMeter(SERVICE_NAME).createCounter(UNACKNOWLEDGED_CHANGES, {
        description:
          'API-key changes (a key created or revoked, a change of who may act) answered before every node subscribed on Redis had acknowledged applying them; those nodes apply them at their next refresh.',
      }),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.reload(), this.settings.ApiKeyCacheRefreshIntervalMilliseconds);
    this.timer.unref();
    this.stopListening = this.identityEvents.on('principalsChanged', (change) => this.principalsChanged(change));
    if (this.settings.RedisConnectionString) this.subscribe();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopListening?.();
    this.subscriber?.disconnect();
  }

  /** The active key with this hash, or undefined. In memory only. */
  lookup(hash: string): Entry | undefined {
    return this.byHash.get(hash);
  }

  get size(): number {
    return this.byHash.size;
  }

  /**
   * A key was created or revoked here: applied at once, then told to the other nodes, and answered once every
   * node subscribed has applied it (ChangeAcknowledgements), or ApiKeyChangeAckTimeoutMilliseconds passed.
   */
  async keyChanged(event: 'created' | 'revoked', keyGuid: string): Promise<Delivery> {
    await this.applyKey(keyGuid);
    return this.publish({ v: 1, event, keyGuid, origin: this.settings.InstanceName });
  }

  /** Full reload; concurrent callers share one run, and a call during a run schedules one more after it. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.pendingReload = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.pendingReload = false;
          const read = this.sequence++;
          const keys = await this.repo.listActive();
          const actors = await this.actors.actorsFor(
            keys.map((k) => k.UserRegistryId),
            'api-key',
          );
          this.applyReload(read, keys, actors);
        } while (this.pendingReload);
      } catch (err) {
        // Keep serving the last good set; the next refresh tries again.
        this.logger.error({ err }, 'API key cache reload failed');
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  /** Applies one key's current state from the database (after a create or revoke, here or on another node). */
  async applyKey(keyGuid: string): Promise<void> {
    const read = this.sequence++;
    const key = await this.repo.findByGuid(keyGuid);
    const active = key && !key.RevokedDate ? [key] : [];
    const actors = await this.actors.actorsFor(
      active.map((k) => k.UserRegistryId),
      'api-key',
    );
    this.applyKeys(read, [keyGuid], active, actors);
  }

  /** Applies the current state of every key of these users (deactivated, deleted, moved to another role). */
  async applyUsers(userIds: readonly number[]): Promise<void> {
    const read = this.sequence++;
    const keys = await this.repo.listActiveOfUsers(userIds);
    const actors = await this.actors.actorsFor(userIds, 'api-key');
    const users = new Set(userIds);
    const cached = [...this.byHash.values()].filter((e) => users.has(e.actor.userId)).map((e) => e.keyGuid);
    this.applyKeys(read, [...cached, ...keys.map((k) => k.Guid)], keys, actors);
  }

  /** Replaces the set with a reload's, except the keys a later read has decided since it started. */
  private applyReload(read: number, keys: KeyRow[], actors: Map<number, Actor>): void {
    if (read < this.reloadedAt) return;
    const next = new Map<string, Entry>();
    for (const k of keys) {
      const actor = actors.get(k.UserRegistryId);
      if (actor && !this.decidedAfter(k.Guid, read)) next.set(k.KeyHash, { keyGuid: k.Guid, actor });
    }
    const later = new Map<string, number>();
    for (const [guid, at] of this.decided) if (at > read) later.set(guid, at);
    for (const [hash, entry] of this.byHash) if (later.has(entry.keyGuid)) next.set(hash, entry);
    this.byHash = next;
    this.decided = later;
    this.reloadedAt = read;
  }

  /** Sets these keys to what a read found (absent from `active`: not usable), unless a later read decided them. */
  private applyKeys(read: number, keyGuids: string[], active: KeyRow[], actors: Map<number, Actor>): void {
    const fresh = keyGuids.filter((guid) => !this.decidedAfter(guid, read));
    if (!fresh.length) return;
    const guids = new Set(fresh);
    for (const [hash, e] of this.byHash) if (guids.has(e.keyGuid)) this.byHash.delete(hash);
    for (const k of active) {
      const actor = actors.get(k.UserRegistryId);
      if (actor && guids.has(k.Guid)) this.byHash.set(k.KeyHash, { keyGuid: k.Guid, actor });
    }
    for (const guid of guids) this.decided.set(guid, read);
  }

  private decidedAfter(keyGuid: string, read: number): boolean {
    return read < this.reloadedAt || (this.decided.get(keyGuid) ?? -1) > read;
  }

  /**
   * Who may act has changed (identity feature; rights taken away apply at once): told to the other nodes first, so their
   * window starts when this node's does, and applied here before the change is answered (the identity
   * service waits for this Promise). A read that fails takes the users' keys out of this node's set until a
   * later read decides them (fail closed). A password lockout is not such a change: API keys are independent
   * of password events (docs/decisions.md).
   */
  private async principalsChanged(change: PrincipalsChanged): Promise<void> {
    const origin = this.settings.InstanceName;
    const targeted = 'userIds' in change && change.userIds.length <= MAX_MESSAGE_USERS;
    const message: ApiKeyMessage = targeted
      ? { v: 1, event: 'principals', userIds: change.userIds, ceiling: change.ceiling, origin }
      : { v: 1, event: 'reload', origin };
    const delivered = this.publish(message);
    try {
      await this.apply(message);
    } catch (err) {
      this.logger.error(
        { err },
        'Applying an identity change to API keys failed: their keys are refused here',
      );
      if (message.event === 'principals') this.dropUsers(message.userIds);
    }
    await delivered;
  }

  /** Takes every key of these users out of the set, as a read made now would decide them. */
  private dropUsers(userIds: readonly number[]): void {
    this.restrictUsers(userIds, 'none');
  }

  /**
   * What a change that only takes rights away says, applied at once, before the users are read again: their keys
   * out of the set (`none`), or their permissions cut to the ceiling. It never grants (a message on Redis can at
   * worst refuse a key until the read), and it counts as a read made now, so an older reload cannot undo it.
   */
  private restrictUsers(userIds: readonly number[], ceiling: PrincipalsCeiling): void {
    const users = new Set(userIds);
    const read = this.sequence++;
    const allowed = ceiling === 'none' ? undefined : new Set<number>(ceiling);
    const keys: KeyRow[] = [];
    const actors = new Map<number, Actor>();
    for (const [hash, e] of this.byHash) {
      if (!users.has(e.actor.userId)) continue;
      keys.push({ Guid: e.keyGuid, KeyHash: hash, UserRegistryId: e.actor.userId });
      if (allowed)
        actors.set(e.actor.userId, {
          ...e.actor,
          permissions: new Set([...e.actor.permissions].filter((p) => allowed.has(p))),
        });
    }
    this.applyKeys(
      read,
      keys.map((k) => k.Guid),
      allowed ? keys : [],
      actors,
    );
  }

  private apply(message: ApiKeyMessage): Promise<void> {
    switch (message.event) {
      case 'created':
      case 'revoked':
        return this.applyKey(message.keyGuid);
      case 'principals':
        if (message.ceiling) this.restrictUsers(message.userIds, message.ceiling);
        return this.applyUsers(message.userIds);
      case 'reload':
        return this.reload();
    }
  }

  /** Tells every node, and waits until each subscribed has applied it (or the timeout). */
  private publish(message: ApiKeyMessage): Promise<Delivery> {
    const ack = this.acks.newId();
    return this.acks.publish(API_KEY_CHANNEL, JSON.stringify({ ...message, ack }), ack, message.event);
  }

  /** A message from a node (this one too): applied, then acknowledged when it asks for it. */
  private received(payload: string): void {
    const msg = parseMessage(payload);
    if (!msg) return;
    this.apply(msg).then(
      () => (msg.ack ? this.acks.acknowledge(msg.ack) : undefined),
      // Not acknowledged: the acting node logs and counts the missing node when its wait ends.
      (err: unknown) => this.logger.error({ err }, 'Applying an API key message failed'),
    );
  }

  private subscribe(): void {
    this.subscriber = createChannelSubscriber(
      this.settings,
      this.sink,
      `${this.settings.InstanceName}:api-keys`,
      [API_KEY_CHANNEL, API_KEY_ACK_CHANNEL],
      {
        message: (payload, channel) =>
          channel === API_KEY_ACK_CHANNEL ? this.acks.received(payload) : this.received(payload),
        // Messages sent while this node was away are lost: reload everything after a reconnect.
        reconnected: () => void this.reload(),
        subscribeFailed: (err) => this.logger.error({ err }, 'Subscribe failed'),
      },
    );
  }
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A message's ceiling: absent, `none`, or permission numbers; null when it is something else. */
function ceilingOf(value: unknown): PrincipalsCeiling | undefined | null {
  if (value === undefined) return undefined;
  if (value === 'none') return 'none';
  return Array.isArray(value) && value.every((p) => Number.isSafeInteger(p)) ? (value as number[]) : null;
}

export function parseMessage(payload: string): ApiKeyMessage | null {
  try {
    const m = JSON.parse(payload) as Record<string, unknown>;
    const message = messageOf(m);
    return message && isAckId(m.ack) ? { ...message, ack: m.ack } : message;
  } catch {
    return null; // not ours
  }
}

/** The message a parsed payload is, without its `ack`; null when it is none. */
function messageOf(m: Record<string, unknown>): ApiKeyMessage | null {
  if (m.v !== 1 || typeof m.origin !== 'string') return null;
  if (
    (m.event === 'created' || m.event === 'revoked') &&
    typeof m.keyGuid === 'string' &&
    GUID.test(m.keyGuid)
  )
    return { v: 1, event: m.event, keyGuid: m.keyGuid, origin: m.origin };
  if (
    m.event === 'principals' &&
    Array.isArray(m.userIds) &&
    m.userIds.length <= MAX_MESSAGE_USERS &&
    m.userIds.every((id) => Number.isSafeInteger(id) && (id as number) > 0)
  ) {
    const ceiling = ceilingOf(m.ceiling);
    if (ceiling === null) return null;
    return { v: 1, event: 'principals', userIds: m.userIds as number[], ceiling, origin: m.origin };
  }
  if (m.event === 'reload') return { v: 1, event: 'reload', origin: m.origin };
  return null;
}
