import { MoreThan, type FindOptionsWhere, type ObjectLiteral, type Repository } from 'typeorm';
import type { PageRequest, RowPage } from '@app/http-edge';

// Declared beside the paging decorators (libs/input-rules sits below this library), used by every repository's lists.
export type { PageRequest, RowPage };

/**
 * One page of a list by keyset on its `Id` (rows in id order, the creation order every list already
 * answers in), and the list's total; `page` null: the whole list, as one page with no next. One more row
 * than the page is read, so the last page needs no second look. Dialect-neutral (TypeORM's find: LIMIT, or
 * OFFSET … FETCH on SQL Server).
 */
export async function findPage<E extends ObjectLiteral & { Id: number }>(
  repo: Repository<E>,
  where: FindOptionsWhere<E>,
  page: PageRequest | null,
): Promise<RowPage<E>> {
  const order = { Id: 'ASC' } as never;
  if (page === null) {
    const rows = await repo.find({ where, order });
    return { rows, total: rows.length, nextAfter: null };
  }
  const [rows, total] = await Promise.all([
    repo.find({ where: { ...where, Id: MoreThan(page.after) }, order, take: page.limit + 1 }),
    repo.count({ where }),
  ]);
  const more = rows.length > page.limit;
  if (more) rows.length = page.limit;
  return { rows, total, nextAfter: more ? rows[rows.length - 1].Id : null };
}
