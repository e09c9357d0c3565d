import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AdminEvents, recordChange } from '@app/audit';
import { Actor } from '@app/access';
import { Clock } from '@app/runtime';
import { type IfMatch, type Page, pageOf, versionedWrite } from '@app/http-edge';
import { Problems } from '@app/problems';
import type { PageRequest } from '@app/database';
import type { CreateTenantDto, TenantDto, UpdateTenantDto } from './dto/identity.dto';
import { TenantRegistry } from './entities';
import { IdentityEvents } from './identity-events';
import { IdentityRepository } from './identity.repository';
import { toTenantDto } from './mappers';

/** Tenants are managed by the landlord only (the route is landlord-only; checked here again). */
@Injectable()
export class TenantService {
  constructor(
    private readonly repo: IdentityRepository,
    private readonly clock: Clock,
    private readonly events: IdentityEvents,
    private readonly trail: AdminEvents,
  ) {}

  private assertLandlord(actor: Actor): void {
    if (!actor.landlord) throw Problems.forbidden('Only the landlord tenant manages tenants.');
  }

  /** The tenants, a page of them when asked (null: the whole list). */
  async list(actor: Actor, page: PageRequest | null = null): Promise<Page<TenantDto>> {
    this.assertLandlord(actor);
    return pageOf(await this.repo.pageTenants(page), (tenants) => tenants.map(toTenantDto));
  }

  async get(actor: Actor, guid: string): Promise<TenantDto> {
    this.assertLandlord(actor);
    return toTenantDto(await this.tenant(guid));
  }

  async create(actor: Actor, dto: CreateTenantDto): Promise<TenantDto> {
    this.assertLandlord(actor);
    const t = Object.assign(new TenantRegistry(), {
      Guid: randomUUID(),
      Name: dto.name.trim(),
      Landlord: false, // exactly one landlord, made by bootstrap
      CreatedDate: new Date(this.clock.now()),
      CreatedUser: actor.userName,
      UpdatedDate: null,
      UpdatedUser: null,
      DeletedDate: null,
      DeletedUser: null,
    });
    return toTenantDto(
      await this.trail.applied(
        actor,
        (saved: TenantRegistry) => recordChange(saved.Id, null, saved),
        (tx) => this.repo.in(tx).insertTenant(t),
      ),
    );
  }

  private async tenant(guid: string): Promise<TenantRegistry> {
    const t = await this.repo.findTenantByGuid(guid);
    if (!t) throw Problems.notFound('tenant');
    return t;
  }

  /**
   * Only the name and the stamp are written: a concurrent deletion is never undone; with
   * If-Match only to the version named (412 otherwise: versionedWrite).
   */
  async update(actor: Actor, guid: string, dto: UpdateTenantDto, ifMatch?: IfMatch): Promise<TenantDto> {
    this.assertLandlord(actor);
    return versionedWrite(
      ifMatch,
      () => this.tenant(guid),
      async (t, version) => {
        const changes = {
          ...(dto.name !== undefined ? { Name: dto.name.trim() } : {}),
          UpdatedDate: new Date(this.clock.now()),
          UpdatedUser: actor.userName,
        };
        const written = await this.trail.applied(actor, recordChange(t.Id, t, { ...t, ...changes }), (tx) =>
          this.repo.in(tx).updateTenant(t.Id, changes, version),
        );
        if (!written) return undefined;
        return toTenantDto(await this.tenant(guid));
      },
    );
  }

  async delete(actor: Actor, guid: string, ifMatch?: IfMatch): Promise<void> {
    this.assertLandlord(actor);
    const tenant = await versionedWrite(
      ifMatch,
      () => this.tenant(guid),
      async (t, version) => {
        if (t.Landlord) throw Problems.conflict('The landlord tenant cannot be deleted.');
        const deleted = await this.trail.applied(actor, recordChange(t.Id, t, null), (tx) =>
          this.repo.in(tx).softDeleteTenant(t.Id, new Date(this.clock.now()), actor.userName, version),
        );
        return deleted ? t : undefined;
      },
    );
    // Its users can no longer act: API keys cached for them are dropped before the answer.
    await this.events.emitAndWait('principalsChanged', {
      userIds: await this.repo.userIdsOf({ tenantId: tenant.Id }),
      ceiling: 'none',
    });
  }
}
