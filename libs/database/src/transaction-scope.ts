import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager, ObjectLiteral, Repository } from 'typeorm';

/** The transaction the current asynchronous call chain writes in (inTransaction), if any. */
const scope = new AsyncLocalStorage<EntityManager>();

/**
 * Runs `work` in ONE transaction: every repository read through `scoped` while it runs writes and reads in
 * that transaction, whatever feature owns it, so a change and its audit row (AdminEvents) commit together or
 * not at all. Inside a transaction already, `work` joins it (no nested transaction).
 */
export function inTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const current = scope.getStore();
  if (current) return work(current);
  return dataSource.transaction((manager) => scope.run(manager, () => work(manager)));
}

/** `repository`, or the same repository bound to the transaction of inTransaction when one is running. */
export function scoped<E extends ObjectLiteral>(repository: Repository<E>): Repository<E> {
  const manager = scope.getStore();
  return manager ? manager.getRepository<E>(repository.target) : repository;
}

/** Whether the current call chain runs inside inTransaction. */
export function inTransactionScope(): boolean {
  return scope.getStore() !== undefined;
}
