import type { GridDeclaration } from './declarations';
import { formatCell, textOf } from './format';
import type { Row } from './grid-api';
import styles from './grids.module.css';
import type { DurationUnit } from './units';

export interface Sort {
  field: string | null;
  direction: 'asc' | 'desc';
}

/**
 * The rows as the service ordered them. A sortable header asks the service for that order (sortField,
 * sortDirection): a page of rows is never re-sorted here, since the window holds more than the page.
 */
export function GridTable({
  grid,
  rows,
  sort,
  onSort,
  units,
}: {
  grid: GridDeclaration;
  rows: Row[];
  /** The unit of each duration column (one per quantity across the page). */
  units: Record<string, DurationUnit>;
  sort: Sort;
  onSort: (field: string) => void;
}) {
  return (
    <div className={styles.tableBox} tabIndex={0} role="region" aria-labelledby="grid-rows-title">
      <table className={styles.table}>
        <thead>
          <tr>
            {grid.columns.map((c) => {
              const active = sort.field?.toLowerCase() === c.key.toLowerCase();
              const ariaSort = active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : undefined;
              const numeric = c.format === 'number' || c.format === 'micros';
              return (
                <th
                  key={c.key}
                  scope="col"
                  aria-sort={ariaSort}
                  className={numeric ? styles.numeric : undefined}
                >
                  {grid.sortable ? (
                    <button
                      type="button"
                      className={styles.sort}
                      onClick={() => onSort(c.key)}
                      title={`Sort by ${c.label} on the service`}
                    >
                      {c.label}
                      <span aria-hidden="true" className={styles.arrow}>
                        {active ? (sort.direction === 'asc' ? '▲' : '▼') : '↕'}
                      </span>
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={textOf(row.id) || i} data-row-id={textOf(row.id)}>
              {grid.columns.map((c) => {
                const text = formatCell(row[c.key], c.format, units[c.key]);
                const numeric = c.format === 'number' || c.format === 'micros';
                if (c.format === 'guid' && typeof row[c.key] === 'string')
                  return (
                    <td key={c.key} className={styles.guid}>
                      <span title={text}>{text.slice(0, 8)}</span>
                    </td>
                  );
                return (
                  <td key={c.key} className={numeric ? styles.numeric : undefined}>
                    {text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
