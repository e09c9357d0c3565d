import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { SETTINGS, Settings } from '@app/config';
import { Actor } from '@app/common';
import { ActorService } from '@app/identity';
import { CacheEventSink, createRedisClient } from '@app/redis';
import { ApiKeyRepository } from './api-key.repository';

export const API_KEY_CHANNEL = 'decisioning:api-keys';

/** The shared-cache publish message (spec: Events), one per key creation or revocation. */
export interface ApiKeyMessage {
  v: 1;
  event: 'created' | 'revoked';
  keyGuid: string;
  origin: string;
}

interface Entry {
  keyGuid: string;
  actor: Actor;
}

/**
 * The in-memory set of active API keys, by SHA-256 hash, each with the Actor of its (active, unlocked,
 * not deleted) user. Reloaded fully on start, every ApiKeyCacheRefreshIntervalMilliseconds and after every
 * Redis reconnect (publish/subscribe delivers at most once); single keys are applied at once from Redis
 * messages. Without Redis the periodic reload alone bounds revocation.
 */
@Injectable()
export class ApiKeyCache implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ApiKeyCache');
  private byHash = new Map<string, Entry>();
  private timer?: NodeJS.Timeout;
  private subscriber?: Redis;
  private reloading?: Promise<void>;
  private pendingReload = false;

  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly actors: ActorService,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly sink: CacheEventSink,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.reload(), this.settings.ApiKeyCacheRefreshIntervalMilliseconds);
    this.timer.unref();
    if (this.settings.RedisConnectionString) this.subscribe();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
  }

  /** The active key with this hash, or undefined. In memory only. */
  lookup(hash: string): Entry | undefined {
    return this.byHash.get(hash);
  }

  get size(): number {
    return this.byHash.size;
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
          const keys = await this.repo.listActive();
          const actors = await this.actors.actorsFor(
            keys.map((k) => k.UserRegistryId),
            'api-key',
          );
          const next = new Map<string, Entry>();
          for (const k of keys) {
            const actor = actors.get(k.UserRegistryId);
            if (actor) next.set(k.KeyHash, { keyGuid: k.Guid, actor });
          }
          this.byHash = next;
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

  /** Applies one key's current state from the database (after a create or revoke message). */
  async applyKey(keyGuid: string): Promise<void> {
    const key = await this.repo.findByGuid(keyGuid);
    for (const [hash, e] of this.byHash) if (e.keyGuid === keyGuid) this.byHash.delete(hash);
    if (!key || key.RevokedDate) return;
    const actor = (await this.actors.actorsFor([key.UserRegistryId], 'api-key')).get(key.UserRegistryId);
    if (actor) this.byHash.set(key.KeyHash, { keyGuid: key.Guid, actor });
  }

  private subscribe(): void {
    const sub = createRedisClient(this.settings, this.sink, `${this.settings.InstanceName}:api-keys`);
    this.subscriber = sub;
    let readyOnce = false;
    sub.on('ready', () => {
      void sub
        .subscribe(API_KEY_CHANNEL)
        .catch((err: unknown) => this.logger.error({ err }, 'Subscribe failed'));
      // Messages sent while this node was away are lost: reload everything after a reconnect.
      if (readyOnce) void this.reload();
      readyOnce = true;
    });
    sub.on('message', (_channel: string, payload: string) => {
      const msg = parseMessage(payload);
      if (msg)
        void this.applyKey(msg.keyGuid).catch((err: unknown) =>
          this.logger.error({ err }, 'Applying an API key message failed'),
        );
    });
  }
}

export function parseMessage(payload: string): ApiKeyMessage | null {
  try {
    const m = JSON.parse(payload) as Partial<ApiKeyMessage>;
    if (
      m.v === 1 &&
      (m.event === 'created' || m.event === 'revoked') &&
      typeof m.keyGuid === 'string' &&
      /^[0-9a-f-]{36}$/.test(m.keyGuid)
    ) {
      return m as ApiKeyMessage;
    }
  } catch {
    /* ignored: not ours */
  }
  return null;
}
