import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import type { Transaction } from '@app/database';
import { AdminEvent } from '../entities/admin-event.entity';

/** A refusal row's count as it stands: how many, and the last one's target and instant. */
export interface RefusalCount {
  count: number;
  lastTargetGuid: string | null;
  lastDate: Date;
}

/**
 * Every query of AdminEvent. Rows are inserted, and a refusal row's count raised while its minute is open (never
 * lowered); the table is never purged.
 */
@Injectable()
export class AdminEventRepository {
  constructor(
    @InjectRepository(AdminEvent) private readonly events: Repository<AdminEvent>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Inserts in `tx` when given: the transaction of the change the row records. */
  async insert(row: Omit<AdminEvent, 'Id'>, tx?: Transaction): Promise<void> {
    await (tx ? tx.getRepository(AdminEvent) : this.events).insert(row);
  }

  /** Inserts a refusal row and answers its Id (its count is raised later by raiseCount). */
  async insertCounted(row: Omit<AdminEvent, 'Id'>): Promise<number> {
    const result = await this.events.insert(row);
    return Number((result.identifiers[0] as { Id?: unknown } | undefined)?.Id);
  }

  /**
   * Raises a refusal row's count to `to.count`, with the last refusal's target and instant: ONE statement that
   * only moves the count forward (a later, smaller count changes nothing).
   */
  async raiseCount(id: number, to: RefusalCount): Promise<void> {
    await this.events
      .createQueryBuilder()
      .update(AdminEvent)
      .set({ EventCount: to.count, LastTargetGuid: to.lastTargetGuid, LastDate: to.lastDate })
      .where('"Id" = :id AND "EventCount" < :count', { id, count: to.count })
      .execute();
  }

  /**
   * The tenant's name now (null when there is no such tenant), read in `tx` when given. TenantRegistry belongs
   * to the identity feature, which depends on this one: its name is read here by a plain parameterised
   * statement rather than through the identity feature's services.
   */
  async tenantName(tenantId: number, tx?: Transaction): Promise<string | null> {
    const row = await (tx ?? this.dataSource.manager)
      .createQueryBuilder()
      .select('t."Name"', 'name')
      .from('TenantRegistry', 't')
      .where('t."Id" = :tenantId', { tenantId })
      .getRawOne<{ name?: unknown }>();
    return typeof row?.name === 'string' ? row.name : null;
  }
}
