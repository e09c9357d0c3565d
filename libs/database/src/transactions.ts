import { Repository, type EntityManager } from 'typeorm';

/**
 * A running transaction, passed explicitly: a feature's repository bound to it (`repo.in(tx)`, made by boundTo)
 * reads and writes in it, so a change and its audit row (AdminEvents) commit together or not at all. Not an
 * AsyncLocalStorage scope: one would turn on Node's async hooks for every promise of every request, which cost
 * Invoke about a sixth of its CPU (docs/decisions.md, "Transactions passed explicitly").
 */
export type Transaction = EntityManager;

/** A feature repository that can be bound to a transaction (boundTo). */
export interface TransactionBound {
  /** The transaction this repository reads and writes in; undefined: none, each statement on its own. */
  readonly tx?: Transaction;
}

/**
 * `repository` reading and writing in `tx`: a copy whose TypeORM tables (its Repository fields) are the same
 * tables in `tx`, every other field shared. No transaction: `repository` itself.
 */
export function boundTo<R extends TransactionBound>(repository: R, tx: Transaction | undefined): R {
  if (tx === undefined || repository.tx === tx) return repository;
  const copy = Object.create(Object.getPrototypeOf(repository) as object) as Record<string, unknown>;
  for (const [key, value] of Object.entries(repository))
    copy[key] = value instanceof Repository ? tx.getRepository(value.target) : value;
  copy.tx = tx;
  return copy as R;
}
