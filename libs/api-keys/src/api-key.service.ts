import { Inject, Injectable, Logger } from '@nestjs/common';
import { KeyObject, randomUUID } from 'node:crypto';
import { API_KEY_SETTINGS, type ApiKeySettings } from '@app/config';
import { AdminEvents, recordChange } from '@app/audit';
import { Actor } from '@app/access';
import { Clock } from '@app/runtime';
import { type Page, pageOf } from '@app/http-edge';
import { Problems } from '@app/problems';
import type { PageRequest } from '@app/database';
import { ActorService } from '@app/identity';
import { ApiKeyCache } from './api-key-cache';
import {
  checksumKey,
  checksumMatches,
  generateApiKey,
  hashApiKey,
  hasApiKeyShape,
  readApiKey,
} from './api-key-format';
import { ApiKeyRepository } from './api-key.repository';
import type { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { UserRegistryApiKey } from './entities/user-registry-api-key.entity';

/** The one outward reason for every API-key failure (spec: API keys 4). */
export const KEY_NOT_FOUND = 'Key Not Found';

@Injectable()
export class ApiKeyService {
  private readonly logger = new Logger('ApiKeys');
  /** The checksum secrets as key objects, imported once (ApiHmacKey, and ApiHmacKeyPrevious when set). */
  private readonly checksumKeys: { current: KeyObject; previous?: KeyObject };
  /** Active-key entries whose key's checksum was verified (checksumVerified). */
  private readonly checkedEntries = new WeakSet<object>();

  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly cache: ApiKeyCache,
    private readonly actors: ActorService,
    private readonly clock: Clock,
    private readonly trail: AdminEvents,
    @Inject(API_KEY_SETTINGS.token) settings: ApiKeySettings,
  ) {
    this.checksumKeys = {
      current: checksumKey(settings.ApiHmacKey ?? ''),
      previous:
        settings.ApiHmacKeyPrevious === undefined ? undefined : checksumKey(settings.ApiHmacKeyPrevious),
    };
  }

  /**
   * Validates an x-api-key value in memory (spec: API keys 3): its shape; SHA-256 of it found in the
   * active-key set (non-revocation); the user the key names being that entry's user; and its embedded checksum
   * (HMAC, constant time). The last two are decided the first time that active key is presented after the set
   * was loaded, and the verdict is remembered with its entry (checkedEntries): the entry is found by the key's
   * SHA-256, so only the key itself reaches it, and a remembered entry needs no decoding of the key again. A
   * failed check is never remembered. Every failure is the same 401.
   */
  validate(key: string): Actor {
    const entry = hasApiKeyShape(key) ? this.cache.lookup(hashApiKey(key)) : undefined;
    if (!entry || !this.verified(entry, key)) {
      throw Problems.unauthenticated('The API key was not accepted.', { reason: KEY_NOT_FOUND });
    }
    return entry.actor;
  }

  /**
   * Whether the key behind `entry` names the entry's user and carries a good checksum, decided once per entry:
   * under load an HMAC's set-up cost about 15 µs of every API-key request, and taking the key apart a few more
   * (docs/performance.md). The cache makes entries anew whenever it reads their keys again (every reload and
   * every change), so each key is verified again at least once per refresh interval; entries are held weakly.
   */
  private verified(entry: { actor: Actor }, key: string): boolean {
    if (this.checkedEntries.has(entry)) return true;
    const presented = readApiKey(key);
    if (
      !presented ||
      entry.actor.userGuid !== presented.userGuid ||
      !checksumMatches(presented, this.checksumKeys.current, this.checksumKeys.previous)
    )
      return false;
    this.checkedEntries.add(entry);
    return true;
  }

  async create(actor: Actor, dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    // spec: API key record — a Name is required: blank is no name.
    const user = await this.actors.userInOwnTenant(actor, dto.userRegistryGuid, { actingOn: true });
    const generated = generateApiKey(user.guid, this.checksumKeys.current);
    // The trail holds the key's user, name and display identifier; its hash only as "changed".
    const row = await this.trail.applied(
      actor,
      (k: UserRegistryApiKey) => recordChange(actor.tenantId, null, { ...k, UserRegistryGuid: user.guid }),
      (tx) =>
        this.repo.in(tx).insert(
          Object.assign(new UserRegistryApiKey(), {
            Guid: randomUUID(),
            UserRegistryId: user.id,
            Name: dto.name.trim(),
            Description: dto.description?.trim() || null,
            KeyHash: generated.hash,
            DisplayIdentifier: generated.displayIdentifier,
            CreatedDate: new Date(this.clock.now()),
            CreatedUser: actor.userName,
            RevokedDate: null,
            RevokedUser: null,
          }),
        ),
    );
    await this.cache.keyChanged('created', row.Guid);
    this.logger.log(
      { keyGuid: row.Guid, displayIdentifier: row.DisplayIdentifier, user: user.name },
      'API key created',
    );
    return { ...toDto(row, user.guid), key: generated.key };
  }

  /** A user's keys, a page of them when asked (null: the whole list). */
  async list(actor: Actor, userGuid: string, page: PageRequest | null = null): Promise<Page<ApiKeyDto>> {
    const user = await this.actors.userInOwnTenant(actor, userGuid);
    return pageOf(await this.repo.listForUser(user.id, page), (keys) => keys.map((k) => toDto(k, user.guid)));
  }

  /** One key of a user of the caller's own tenant (revoked keys included, as in the list); else the 404. */
  async get(actor: Actor, keyGuid: string): Promise<ApiKeyDto> {
    const key = await this.repo.findByGuid(keyGuid);
    const userGuid = key ? await this.actors.userGuidInTenant(key.UserRegistryId, actor.tenantId) : undefined;
    if (!key || userGuid === undefined) throw Problems.notFound('API key');
    return toDto(key, userGuid);
  }

  async revoke(actor: Actor, keyGuid: string): Promise<void> {
    const key = await this.repo.findByGuid(keyGuid);
    if (!key) throw Problems.notFound('API key');
    const users = await this.actors.actorsFor([key.UserRegistryId], 'api-key');
    // The owner must be in the caller's tenant; a key of a deactivated user can still be revoked.
    const owner = users.get(key.UserRegistryId);
    if (owner ? owner.tenantId !== actor.tenantId : !(await this.ownerInTenant(actor, key.UserRegistryId))) {
      throw Problems.notFound('API key');
    }
    // Revoking a key cuts its user off: refused when they hold a permission the caller lacks.
    await this.actors.assertMayActOnUser(actor, key.UserRegistryId);
    await this.trail.applied(actor, recordChange(actor.tenantId, key, null), (tx) =>
      this.repo.in(tx).revoke(keyGuid, new Date(this.clock.now()), actor.userName),
    );
    await this.cache.keyChanged('revoked', keyGuid);
    this.logger.log({ keyGuid, displayIdentifier: key.DisplayIdentifier }, 'API key revoked');
  }

  private async ownerInTenant(actor: Actor, userId: number): Promise<boolean> {
    return this.actors.isUserInTenant(userId, actor.tenantId);
  }
}

function toDto(k: UserRegistryApiKey, userGuid: string): ApiKeyDto {
  return {
    guid: k.Guid,
    userRegistryGuid: userGuid,
    name: k.Name,
    description: k.Description,
    displayIdentifier: k.DisplayIdentifier,
    createdDate: k.CreatedDate.toISOString(),
    createdUser: k.CreatedUser,
    revokedDate: k.RevokedDate ? k.RevokedDate.toISOString() : null,
    revokedUser: k.RevokedUser,
  };
}
