import { useCallback, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiError, describeError } from '../../api/problem';
import { Alert } from '../../components/Alert';
import { usePageTitle } from '../../components/page-title';
import { NotFoundPage } from '../not-found/NotFoundPage';
import { gridNamed, gridPath, type GridDeclaration } from './declarations';
import { CountLine, RowsSection, StatisticsSection } from './GridAnswer';
import { GridHeading } from './GridHeading';
import type { Sort } from './GridTable';
import styles from './grids.module.css';
import { pagingOf } from './paging';
import { SeriesPanel } from './SeriesPanel';
import { Toolbar, type ViewChanges } from './Toolbar';
import { gridQuery, isoWithOffset, PAGING_PARAMS } from './toolbar-state';
import { useGridAnswer } from './use-grid-answer';
import { useTelemetryStream } from './use-live';

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
 * The view in the URL, changed: every change but the pager's starts again from the newest rows (a page of
 * older rows belongs to the view it was taken in).
 */
function useViewChange() {
  const [params, setParams] = useSearchParams();
  const change = useCallback(
    (changes: ViewChanges) => {
      const next = new URLSearchParams(params);
      const paging = Object.keys(changes).some((k) => (PAGING_PARAMS as readonly string[]).includes(k));
      if (!paging) for (const name of PAGING_PARAMS) next.delete(name);
      for (const [k, v] of Object.entries(changes)) {
        if (v === '') next.delete(k);
        else next.set(k, v);
      }
      setParams(next);
    },
    [params, setParams],
  );
  return { params, change };
}

function GridView({ grid }: { grid: GridDeclaration }) {
  usePageTitle(grid.title);
  const { params, change } = useViewChange();
  const view = gridQuery(grid, params);
  const key = view.toString();
  const [paused, setPaused] = useState(false);
  const { result, refresh, poll } = useGridAnswer(grid, key, paused);
  const live = useTelemetryStream(grid.live.stream && !result.isError ? grid.name : null, !paused, refresh);
  const forbidden = result.error instanceof ApiError && result.error.status === 403;
  const sort: Sort = {
    field: view.get('sortField'),
    direction: view.get('sortDirection')?.toLowerCase() === 'asc' ? 'asc' : 'desc',
  };
  const sortBy = (field: string) =>
    change({
      sortField: field,
      sortDirection:
        sort.field?.toLowerCase() === field.toLowerCase() && sort.direction === 'asc' ? 'desc' : 'asc',
    });
  const zoom = useCallback(
    (from: number, to: number) =>
      change({ range: '', from: isoWithOffset(new Date(from)), to: isoWithOffset(new Date(to)) }),
    [change],
  );
  const paging = pagingOf(grid, view, change);
  const state = result.isError ? 'stopped' : grid.live.stream ? live : paused ? 'paused' : 'poll';
  const data = result.data;
  return (
    <>
      <GridHeading
        grid={grid}
        state={state}
        refusal={result.isError}
        paused={paused}
        onPause={(next) => {
          if (!next) refresh();
          setPaused(next);
        }}
      />
      {!forbidden && <Toolbar key={key} grid={grid} params={view} onApply={change} />}
      {view.get('targetGuid') && (
        <p className={styles.summary} data-target-guid={view.get('targetGuid')}>
          The history of one record ({view.get('targetGuid')}). <Link to={gridPath(grid)}>Every record</Link>
        </p>
      )}
      {result.isError && <Alert tone="error">{refusal(result.error)}</Alert>}
      {result.isPending && (
        <p role="status" className={styles.loading}>
          Loading {grid.title.toLowerCase()}…
        </p>
      )}
      {data && !result.isError && (
        <>
          <CountLine
            grid={grid}
            view={view}
            data={data}
            paging={paging}
            fetching={result.isFetching}
            stale={result.isPlaceholderData}
          />
          <SeriesPanel grid={grid} view={key} poll={poll} onZoom={zoom} />
          <StatisticsSection grid={grid} data={data} />
          <RowsSection
            grid={grid}
            data={data}
            sort={sort}
            onSort={sortBy}
            paging={paging}
            stale={result.isPlaceholderData}
          />
        </>
      )}
    </>
  );
}
