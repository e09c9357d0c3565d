import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { UserLogin, UserLogout } from './entities';

/** Every query of the audit tables. Rows are only ever inserted: the tables are never purged. */
@Injectable()
export class AuditRepository {
  constructor(
    @InjectRepository(UserLogin) private readonly logins: Repository<UserLogin>,
    @InjectRepository(UserLogout) private readonly logouts: Repository<UserLogout>,
  ) {}

  async insertLogin(row: Omit<UserLogin, 'Id'>): Promise<void> {
    await this.logins.insert(row);
  }

  async insertLogout(row: Omit<UserLogout, 'Id'>): Promise<void> {
    await this.logouts.insert(row);
  }
}
