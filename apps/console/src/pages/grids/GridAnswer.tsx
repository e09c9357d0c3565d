import formStyles from '../../components/forms.module.css';
import { columnLabel, type GridDeclaration } from './declarations';
import { csvHref, type Row } from './grid-api';
import { GridTable, type Sort } from './GridTable';
import type { GridResponse } from './grid-types';
import styles from './grids.module.css';
import { StatisticsPanel } from './StatisticsPanel';
import type { Paging } from './paging';
import { columnUnits, type DurationUnit } from './units';

/**
 * The unit of each duration column, one per quantity across the page: from the service's statistics over
 * the whole window where the grid has them, else from the rows shown.
 */
export function gridUnits(grid: GridDeclaration, data: GridResponse<Row>): Record<string, DurationUnit> {
  return columnUnits(grid.columns, (key) => {
    const statistics = data.statistics[key];
    if (statistics && statistics.max !== null)
      return Math.max(Math.abs(statistics.max), Math.abs(statistics.min ?? 0));
    return Math.max(0, ...data.rows.map((r) => (typeof r[key] === 'number' ? Math.abs(r[key]) : 0)));
  });
}

/** The newest rows an export holds at most (spec: each grid holds the last 100 000). */
const EXPORT_CAP = 100_000;
const n = (v: number) => v.toLocaleString();

/**
 * "N rows in the window", or which rows of how many this page shows; Download CSV and its cap. `stale`: the
 * answer shown is the previous view's (kept while the new one loads), so no row numbers are claimed for it.
 */
export function CountLine({
  grid,
  view,
  data,
  paging,
  fetching,
  stale,
}: {
  grid: GridDeclaration;
  view: URLSearchParams;
  data: GridResponse<Row>;
  paging: Paging;
  fetching: boolean;
  stale: boolean;
}) {
  const shown = data.rows.length;
  const first = paging.offset + 1;
  const exported = Math.min(EXPORT_CAP, data.total);
  return (
    <div className={styles.countLine}>
      <div>
        <p
          role="status"
          aria-live="polite"
          aria-busy={stale}
          data-total={data.total}
          data-shown={shown}
          data-first={stale ? undefined : first}
        >
          {stale ? (
            <>Loading these rows…</>
          ) : data.total > shown || paging.page > 1 ? (
            <>
              Showing rows <strong>{n(shown ? first : 0)}</strong>–<strong>{n(paging.offset + shown)}</strong>{' '}
              of <strong>{n(data.total)}</strong> in the window, newest first.
            </>
          ) : (
            <>
              <strong>{n(data.total)}</strong> {data.total === 1 ? 'row' : 'rows'} in the window.
            </>
          )}
          {fetching && <span className={styles.fetching}> Refreshing…</span>}
        </p>
        {exported < data.total && (
          <p className={styles.capped} data-capped={exported}>
            The CSV holds the newest {n(exported)} of the {n(data.total)} rows in the window (the most an
            export holds); its file name says so.
          </p>
        )}
      </div>
      <a className={formStyles.secondary} href={csvHref(grid, view)} download>
        Download CSV
      </a>
    </div>
  );
}

/** Per statistics column: the service's figures and histogram over the whole window. */
export function StatisticsSection({
  grid,
  data,
  units,
}: {
  grid: GridDeclaration;
  data: GridResponse<Row>;
  units: Record<string, DurationUnit>;
}) {
  if (grid.statistics.length === 0) return null;
  return (
    <section aria-labelledby="grid-statistics-title">
      <h2 id="grid-statistics-title" className={styles.sectionTitle}>
        Statistics over the whole window ({n(data.total)} rows, at most the newest 100 000)
      </h2>
      <div className={styles.panels}>
        {grid.statistics.map((key) => {
          const column = grid.columns.find((c) => c.key === key) ?? {
            key,
            label: columnLabel(grid, key),
            format: 'number' as const,
          };
          const statistics = data.statistics[key];
          return statistics ? (
            <StatisticsPanel
              key={key}
              column={column}
              statistics={statistics}
              unit={units[key]}
              sum={grid.sums?.includes(key) === true}
            />
          ) : null;
        })}
      </div>
    </section>
  );
}

/** The rows, in the service's order, with the pager to older rows below them (held while `stale`). */
export function RowsSection({
  grid,
  data,
  sort,
  onSort,
  paging,
  stale,
  units,
}: {
  grid: GridDeclaration;
  data: GridResponse<Row>;
  sort: Sort;
  onSort: (field: string) => void;
  paging: Paging;
  stale: boolean;
  units: Record<string, DurationUnit>;
}) {
  const shown = data.rows.length;
  return (
    <>
      <h2 id="grid-rows-title" className={styles.sectionTitle}>
        Rows{grid.sortable ? ' (sorted by the service: choose a column header)' : ', newest first'}
      </h2>
      {shown === 0 ? (
        <p className={styles.empty}>
          {paging.page > 1
            ? 'No older rows in this window.'
            : 'No rows in this window. Widen the window, or clear the filters.'}
        </p>
      ) : (
        <>
          <GridTable grid={grid} rows={data.rows} sort={sort} onSort={onSort} units={units} />
        </>
      )}
      <Pager data={data} paging={paging} stale={stale} />
    </>
  );
}

/** Newest rows / Older rows: "older" is keyed on the last row's time and id, so it stays right while rows arrive. */
function Pager({ data, paging, stale }: { data: GridResponse<Row>; paging: Paging; stale: boolean }) {
  // More when this page is full and the window holds rows beyond it.
  const more =
    paging.enabled &&
    data.rows.length > 0 &&
    data.rows.length >= paging.take &&
    paging.offset + data.rows.length < data.total;
  if (!paging.enabled || (paging.page === 1 && !more)) return null;
  return (
    <nav className={styles.pager} aria-label="Pages of rows">
      <button
        type="button"
        className={formStyles.secondary}
        disabled={paging.page === 1 || stale}
        onClick={paging.newest}
      >
        Newest rows
      </button>
      <button
        type="button"
        className={formStyles.secondary}
        // never keyed on the previous page's rows while this page loads
        disabled={!more || stale}
        onClick={() => paging.older(data.rows.at(-1)!)}
      >
        Older rows
      </button>
      <p>
        {more
          ? `Page ${paging.page}, ${n(paging.take)} rows a page.`
          : `Page ${paging.page}: the oldest rows of the window.`}
      </p>
    </nav>
  );
}
