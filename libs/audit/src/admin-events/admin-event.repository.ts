import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Transaction } from '@app/database';
import { AdminEvent } from '../entities/admin-event.entity';

/** Every query of AdminEvent. Rows are only ever inserted: the table is never purged. */
@Injectable()
export class AdminEventRepository {
  constructor(@InjectRepository(AdminEvent) private readonly events: Repository<AdminEvent>) {}

  /** Inserts in `tx` when given: the transaction of the change the row records. */
  async insert(row: Omit<AdminEvent, 'Id'>, tx?: Transaction): Promise<void> {
    await (tx ? tx.getRepository(AdminEvent) : this.events).insert(row);
  }
}
