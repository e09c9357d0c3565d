import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { ApiError, describeError } from '../../api/problem';
import { Alert } from '../../components/Alert';
import formStyles from '../../components/forms.module.css';
import { usePageTitle } from '../../components/page-title';
import { NotFoundPage } from '../not-found/NotFoundPage';
import { TimeSeriesChart } from './charts/TimeSeriesChart';
import { gridNamed, type GridDeclaration } from './declarations';
import { csvHref, fetchGrid } from './grid-api';
import { GridTable, type Sort } from './GridTable';
import styles from './grids.module.css';
import { StatisticsPanel } from './StatisticsPanel';
import { Toolbar } from './Toolbar';
import { gridQuery } from './toolbar-state';
import { useTelemetryStream, type LiveState } from './use-live';

/** /Administration/:grid — every grid page is this component and the grid's declaration. */
export function GridPage() {
  const { grid: name } = useParams();
  const grid = gridNamed(name);
  if (!grid) return <NotFoundPage />;
  return <GridView key={grid.name} grid={grid} />;
}

/** What a refused grid request means to the person reading the page. */
function refusal(error: unknown): string {
  if (error instanceof ApiError && error.status === 403)
    return 'Not permitted: your account may not read this grid. Ask an administrator if you need it.';
  if (error instanceof ApiError && error.status === 400) {
    const field = error.problem?.errors?.[0]?.field;
    const message =
      error.problem?.errors?.[0]?.message ?? error.problem?.detail ?? 'The request was not valid.';
    return field ? `The parameter ${field} was refused: ${message}` : message;
  }
  return describeError(error);
}

/**
 * Rows the table lists at most: Rows may fetch up to 100 000 (for the time series), but a plain table of that
 * many rows takes the browser seconds and hundreds of megabytes to lay out.
 */
const TABLE_ROWS = 1_000;

const POLL_SECONDS = (grid: GridDeclaration) => (grid.live.stream ? 0 : grid.live.pollMilliseconds / 1000);

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  stopped: 'Not live',
  paused: 'Paused',
};

function GridView({ grid }: { grid: GridDeclaration }) {
  usePageTitle(grid.title);
  const [params, setParams] = useSearchParams();
  const query = gridQuery(grid, params);
  const queryString = query.toString();
  const queryClient = useQueryClient();
  const [paused, setPaused] = useState(false);

  const result = useQuery({
    queryKey: ['grid', grid.name, queryString],
    queryFn: ({ signal }) => fetchGrid(grid, new URLSearchParams(queryString), signal),
    placeholderData: keepPreviousData,
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 1,
    // Polled grids refresh while visible (TanStack Query stops in a hidden tab); never after a refusal.
    refetchInterval: (q) =>
      !grid.live.stream && !paused && q.state.status !== 'error' ? grid.live.pollMilliseconds : false,
    refetchIntervalInBackground: false,
  });

  const refetch = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: ['grid', grid.name] }),
    [queryClient, grid.name],
  );
  const live = useTelemetryStream(grid.live.stream && !result.isError ? grid.name : null, !paused, refetch);

  function change(changes: Record<string, string>) {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next);
  }

  const sort: Sort = {
    field: params.get('sortField'),
    direction: params.get('sortDirection')?.toLowerCase() === 'asc' ? 'asc' : 'desc',
  };
  function sortBy(field: string) {
    const again = sort.field?.toLowerCase() === field.toLowerCase();
    change({ sortField: field, sortDirection: again && sort.direction === 'asc' ? 'desc' : 'asc' });
  }

  // Not permitted: no toolbar to offer (a 400, by contrast, is fixed in the toolbar).
  const forbidden = result.error instanceof ApiError && result.error.status === 403;
  const data = result.data;
  const shown = data?.rows.length ?? 0;
  const liveState: LiveState | 'poll' = result.isError
    ? 'stopped'
    : grid.live.stream
      ? live
      : paused
        ? 'paused'
        : 'poll';
  const liveText =
    liveState === 'poll' ? `Refreshed every ${POLL_SECONDS(grid)} s while visible` : LIVE_TEXT[liveState];

  return (
    <>
      <div className={styles.heading}>
        <div>
          <h1>{grid.title}</h1>
          <p className={styles.summary}>
            {grid.summary} <span className={styles.member}>GET /api/{grid.name}</span>
          </p>
        </div>
        <div className={styles.live}>
          <span role="status" className={styles.liveState} data-live={liveState}>
            <span className={styles.dot} aria-hidden="true" />
            {liveText}
          </span>
          {!result.isError && (
            <button
              type="button"
              className={formStyles.secondary}
              aria-pressed={paused}
              onClick={() => {
                if (paused) refetch();
                setPaused(!paused);
              }}
            >
              {paused ? 'Resume' : 'Pause'}
            </button>
          )}
        </div>
      </div>

      {!forbidden && <Toolbar key={queryString} grid={grid} params={params} onApply={change} />}

      {result.isError && <Alert tone="error">{refusal(result.error)}</Alert>}
      {result.isPending && (
        <p role="status" className={styles.loading}>
          Loading {grid.title.toLowerCase()}…
        </p>
      )}

      {data && !result.isError && (
        <>
          <div className={styles.countLine}>
            <p role="status" aria-live="polite" data-total={data.total} data-shown={shown}>
              {data.total > shown ? (
                <>
                  Showing <strong>{shown.toLocaleString()}</strong> of{' '}
                  <strong>{data.total.toLocaleString()}</strong> rows in the window (raise Rows to see more).
                </>
              ) : (
                <>
                  <strong>{data.total.toLocaleString()}</strong> {data.total === 1 ? 'row' : 'rows'} in the
                  window.
                </>
              )}
              {result.isFetching && <span className={styles.fetching}> Refreshing…</span>}
            </p>
            {grid.csv && (
              <a className={formStyles.secondary} href={csvHref(grid, query)} download={`${grid.name}.csv`}>
                Download CSV
              </a>
            )}
          </div>

          {grid.timeSeries && (
            <section className={styles.panel} aria-labelledby="grid-series-title">
              <h2 id="grid-series-title" className={styles.panelTitle}>
                {grid.timeSeries.label} over the {shown.toLocaleString()} rows shown
                {grid.timeSeries.seriesBy
                  ? `, per ${grid.timeSeries.seriesBy === 'queueName' ? 'queue' : 'stage'}`
                  : ''}
              </h2>
              <TimeSeriesChart
                rows={data.rows}
                time={grid.timeSeries.time}
                measure={grid.timeSeries.measure}
                seriesBy={grid.timeSeries.seriesBy}
                title={`${grid.timeSeries.measure} by ${grid.timeSeries.time}`}
              />
            </section>
          )}

          {grid.statistics.length > 0 && (
            <section aria-labelledby="grid-statistics-title">
              <h2 id="grid-statistics-title" className={styles.sectionTitle}>
                Statistics over the whole window ({data.total.toLocaleString()} rows, at most the newest 100
                000)
              </h2>
              <div className={styles.panels}>
                {grid.statistics.map((key) => {
                  const column = grid.columns.find((c) => c.key === key) ?? {
                    key,
                    label: key,
                    format: 'number' as const,
                  };
                  const statistics = data.statistics[key];
                  return statistics ? (
                    <StatisticsPanel key={key} column={column} statistics={statistics} />
                  ) : null;
                })}
              </div>
            </section>
          )}

          <h2 id="grid-rows-title" className={styles.sectionTitle}>
            Rows{grid.sortable ? ' (sorted by the service: choose a column header)' : ', newest first'}
          </h2>
          {shown === 0 ? (
            <p className={styles.empty}>No rows in this window. Widen From and To, or clear the filters.</p>
          ) : (
            <>
              {shown > TABLE_ROWS && (
                <p role="status" className={styles.empty}>
                  The table lists the first {TABLE_ROWS.toLocaleString()} of the {shown.toLocaleString()} rows
                  fetched; the time series above draws them all.
                </p>
              )}
              <GridTable
                grid={grid}
                rows={shown > TABLE_ROWS ? data.rows.slice(0, TABLE_ROWS) : data.rows}
                sort={sort}
                onSort={sortBy}
              />
            </>
          )}
        </>
      )}
    </>
  );
}
