import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { ApiError } from '../../api/problem';
import type { GridDeclaration } from './declarations';
import { fetchGrid, fetchSeries, seriesView } from './grid-api';

/** Buckets the window's chart asks for: about one per 5 px of a wide chart, and cheap to draw. */
export const SERIES_BUCKETS = 200;

/** Not for a refusal (4xx: it will not change), once for anything else. */
const retry = (count: number, error: unknown) =>
  !(error instanceof ApiError && error.status < 500) && count < 1;

/**
 * The grid's answer for a view (the URL's query, `view`), refreshed while the page is open: polled grids
 * every few seconds while visible (TanStack Query stops in a hidden tab), stream-fed grids by `refresh`,
 * which refetches the rows and the chart of every view of this grid.
 */
export function useGridAnswer(grid: GridDeclaration, view: string, paused: boolean) {
  const queryClient = useQueryClient();
  const poll = (status: string) =>
    !grid.live.stream && !paused && status !== 'error' ? grid.live.pollMilliseconds : false;
  const result = useQuery({
    queryKey: ['grid', grid.name, 'rows', view],
    queryFn: ({ signal }) => fetchGrid(grid, new URLSearchParams(view), signal),
    placeholderData: keepPreviousData,
    retry,
    refetchInterval: (q) => poll(q.state.status),
    refetchIntervalInBackground: false,
  });
  const refresh = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: ['grid', grid.name] }),
    [queryClient, grid.name],
  );
  return { result, refresh, poll };
}

/** The chart's series for the view's window (the rows' take, order and page do not change it). */
export function useGridSeries(grid: GridDeclaration, view: string, poll: (status: string) => number | false) {
  const key = seriesView(view);
  return useQuery({
    queryKey: ['grid', grid.name, 'series', key],
    queryFn: ({ signal }) => fetchSeries(grid, new URLSearchParams(key), SERIES_BUCKETS, signal),
    enabled: grid.timeSeries !== undefined,
    placeholderData: keepPreviousData,
    retry,
    refetchInterval: (q) => poll(q.state.status),
    refetchIntervalInBackground: false,
  });
}
