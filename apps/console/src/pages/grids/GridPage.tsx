import { useCallback, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiError, describeError } from '../../api/problem';
import { Alert } from '../../components/Alert';
import { usePageTitle } from '../../components/page-title';
import { NotFoundPage } from '../not-found/NotFoundPage';
import { gridNamed, gridPath, type GridDeclaration } from './declarations';
import { CountLine, gridUnits, RowsSection, StatisticsSection } from './GridAnswer';
import { GridHeading } from './GridHeading';
import type { Sort } from './GridTable';
import styles from './grids.module.css';
import { pagingOf } from './paging';
import { SeriesPanel } from './SeriesPanel';
import { Toolbar, type ViewChanges } from './Toolbar';
import type { Row } from './grid-api';
import { gridQuery, isoWithOffset, PAGING_PARAMS } from './toolbar-state';
import { useGridAnswer } from './use-grid-answer';
import { useTelemetryStream, type LiveState } from './use-live';
import { formatClock } from '../../components/time';
import { Loading } from '../../components/Loading';

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
  // 400: a parameter the document refuses; 422: parameters valid alone that contradict each other.
  if (error instanceof ApiError && (error.status === 400 || error.status === 422)) {
    const fields = (error.problem?.errors ?? []).map((e) => e.field);
    const message =
      error.problem?.errors?.[0]?.message ?? error.problem?.detail ?? 'The request was not valid.';
    if (fields.length > 1) return `The parameters ${fields.join(' and ')} were refused: ${message}`;
    return fields.length ? `The parameter ${fields[0]} was refused: ${message}` : message;
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

/**
 * What the heading says about the data: "Live" only once rows arrived over a connected stream; "Not updating"
 * when the last refresh failed (the rows shown are older); the poll or the pause otherwise.
 */
function freshness(
  failed: boolean,
  stale: boolean,
  arrived: boolean,
  stream: LiveState | null,
  paused: boolean,
): LiveState | 'poll' | 'stale' {
  if (stale) return 'stale';
  if (failed) return 'stopped';
  if (stream === null) return paused ? 'paused' : 'poll';
  return stream === 'live' && !arrived ? 'connecting' : stream;
}

/** The table's order (the service's), and the change a header asks for: ascending first, then descending. */
function sortOf(view: URLSearchParams, change: (changes: ViewChanges) => void) {
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
  return { sort, sortBy };
}

/** A refusal ends the view; a failure to answer keeps the rows of `staleSince` (ms), and says so. */
function AnswerProblem({ error, staleSince }: { error: unknown; staleSince: number }) {
  if (!staleSince) return <Alert tone="error">{refusal(error)}</Alert>;
  return (
    <Alert tone="warning">
      {describeError(error)} The rows below are those of {formatClock(staleSince)}.
    </Alert>
  );
}

/**
 * A record's history (the trail filtered by `targetGuid`) is titled by the record's name as the trail holds it
 * (its newest row's target), never by its identifier.
 */
function historyTitle(grid: GridDeclaration, view: URLSearchParams, rows: Row[] | undefined): string {
  if (!view.get('targetGuid')) return grid.title;
  const name = rows?.find((r) => typeof r.targetName === 'string' && r.targetName)?.targetName;
  return typeof name === 'string' ? `History of ${name}` : 'History of one record';
}

function GridView({ grid }: { grid: GridDeclaration }) {
  const { params, change } = useViewChange();
  const view = gridQuery(grid, params);
  const key = view.toString();
  const [paused, setPaused] = useState(false);
  const { result, refresh, poll } = useGridAnswer(grid, key, paused);
  // A refusal (4xx) ends the view; a failure to answer (no answer, 5xx) keeps the last rows, marked stale,
  // and the stream keeps trying (each event refetches).
  const refused = result.error instanceof ApiError && result.error.status >= 400 && result.error.status < 500;
  const live = useTelemetryStream(grid.live.stream && !refused ? grid.name : null, !paused, refresh);
  const forbidden = result.error instanceof ApiError && result.error.status === 403;
  const { sort, sortBy } = sortOf(view, change);
  const zoom = useCallback(
    (from: number, to: number) =>
      change({ range: '', from: isoWithOffset(new Date(from)), to: isoWithOffset(new Date(to)) }),
    [change],
  );
  const paging = pagingOf(grid, view, change);
  const data = refused ? undefined : result.data;
  const stale = result.isError && data !== undefined;
  const units = useMemo(() => (data ? gridUnits(grid, data) : {}), [grid, data]);
  const state = freshness(result.isError, stale, data !== undefined, grid.live.stream ? live : null, paused);
  const title = historyTitle(grid, view, data?.rows);
  usePageTitle(title);
  return (
    <>
      <GridHeading
        grid={grid}
        title={title}
        state={state}
        refusal={result.isError}
        updatedAt={data ? result.dataUpdatedAt : 0}
        paused={paused}
        onPause={(next) => {
          if (!next) refresh();
          setPaused(next);
        }}
      />
      {!forbidden && <Toolbar key={key} grid={grid} params={view} onApply={change} />}
      {view.get('targetGuid') && (
        <p className={styles.summary} data-target-guid={view.get('targetGuid')}>
          Every action on this record in the administrators&apos; trail.{' '}
          <Link to={gridPath(grid)}>Every record</Link>
        </p>
      )}
      {result.isError && <AnswerProblem error={result.error} staleSince={stale ? result.dataUpdatedAt : 0} />}
      {result.isPending && <Loading what={grid.title.toLowerCase()} className={styles.loading} />}
      {data && (
        <>
          <CountLine
            grid={grid}
            view={view}
            data={data}
            paging={paging}
            fetching={result.isFetching}
            stale={result.isPlaceholderData}
          />
          <SeriesPanel grid={grid} view={key} poll={poll} onZoom={zoom} units={units} />
          <StatisticsSection grid={grid} data={data} units={units} />
          <RowsSection
            grid={grid}
            data={data}
            sort={sort}
            onSort={sortBy}
            paging={paging}
            stale={result.isPlaceholderData}
            units={units}
          />
        </>
      )}
    </>
  );
}
