import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { scoped } from '@app/database';
import { AdminEvent } from '../entities/admin-event.entity';

/** Every query of AdminEvent. Rows are only ever inserted: the table is never purged. */
@Injectable()
export class AdminEventRepository {
  constructor(@InjectRepository(AdminEvent) private readonly events: Repository<AdminEvent>) {}

  /** Inserts in the running transaction (inTransaction) when there is one: the change's own. */
  async insert(row: Omit<AdminEvent, 'Id'>): Promise<void> {
    await scoped(this.events).insert(row);
  }
}
