import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, Repository } from 'typeorm';
import {
  boundTo,
  findInChunks,
  findPage,
  type PageRequest,
  type RowPage,
  type Transaction,
  type TransactionBound,
} from '@app/database';
import { UserRegistryApiKey } from './entities/user-registry-api-key.entity';

@Injectable()
export class ApiKeyRepository implements TransactionBound {
  /** The transaction this repository's statements run in (boundTo); none: each statement on its own. */
  readonly tx?: Transaction;

  constructor(@InjectRepository(UserRegistryApiKey) private readonly keys: Repository<UserRegistryApiKey>) {}

  /** This repository reading and writing in `tx` (a change with its audit row); none: itself. */
  in(tx: Transaction | undefined): ApiKeyRepository {
    return boundTo(this, tx);
  }

  insert(key: UserRegistryApiKey): Promise<UserRegistryApiKey> {
    return this.keys.save(key);
  }

  /** A user's keys (revoked ones too), a page of them when asked (null: all of them). */
  listForUser(userId: number, page: PageRequest | null = null): Promise<RowPage<UserRegistryApiKey>> {
    return findPage(this.keys, { UserRegistryId: userId }, page);
  }

  findByGuid(guid: string): Promise<UserRegistryApiKey | null> {
    return this.keys.findOne({ where: { Guid: guid } });
  }

  /** Every key not revoked: the cache's full reload. */
  listActive(): Promise<Pick<UserRegistryApiKey, 'Guid' | 'KeyHash' | 'UserRegistryId'>[]> {
    return this.keys.find({
      select: { Guid: true, KeyHash: true, UserRegistryId: true },
      where: { RevokedDate: IsNull() },
    });
  }

  /** The keys not revoked of these users: a change of who may act is applied to them at once. */
  listActiveOfUsers(
    userIds: readonly number[],
  ): Promise<Pick<UserRegistryApiKey, 'Guid' | 'KeyHash' | 'UserRegistryId'>[]> {
    return findInChunks(userIds, (chunk) =>
      this.keys.find({
        select: { Guid: true, KeyHash: true, UserRegistryId: true },
        where: { RevokedDate: IsNull(), UserRegistryId: In(chunk) },
      }),
    );
  }

  /** Soft revoke; true when this call revoked it. */
  async revoke(guid: string, when: Date, by: string): Promise<boolean> {
    const r = await this.keys.update(
      { Guid: guid, RevokedDate: IsNull() },
      { RevokedDate: when, RevokedUser: by },
    );
    return (r.affected ?? 0) > 0;
  }
}
