import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { gridNamed, gridPath } from '../grids/declarations';
import { fetchGrid, type Row } from '../grids/grid-api';
import type { GridResponse } from '../grids/grid-types';
import { isoWithOffset } from '../grids/toolbar-state';

/** The home page's window: the last hour up to the moment it was read, read again every minute. */
const HOUR = 3_600_000;
const REFRESH = 60_000;

export interface HealthWindow {
  from: string;
  to: string;
  /** Reads the figures again, for the hour up to now. */
  refresh: () => void;
}

export function useHealthWindow(): HealthWindow {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), REFRESH);
    return () => clearInterval(timer);
  }, []);
  return {
    from: isoWithOffset(new Date(now - HOUR)),
    to: isoWithOffset(new Date(now)),
    refresh: () => setNow(Date.now()),
  };
}

/**
 * One figure of the home page: a grid's answer for the window (and `filters`), and the link to that grid
 * with the same window and filters, so the grid shows the same rows the figure counts.
 */
export function useGridFigure(name: string, hour: HealthWindow, filters: Record<string, string>) {
  const grid = gridNamed(name);
  const view = new URLSearchParams({ from: hour.from, to: hour.to, ...filters });
  const answer = useQuery({
    queryKey: ['home', name, view.toString()],
    queryFn: ({ signal }) =>
      fetchGrid(grid!, new URLSearchParams({ ...Object.fromEntries(view), take: '1' }), signal),
    enabled: grid !== undefined,
    placeholderData: (previous) => previous,
  });
  return { answer, href: grid ? `${gridPath(grid)}?${view.toString()}` : '/' };
}

/** The rows a stage rollup counted over the window: the sum of invokeCount (its mean times its rows). */
export function invocations(answer: GridResponse<Row> | undefined): number | null {
  const s = answer?.statistics.invokeCount;
  if (!s) return null;
  return s.count === 0 || s.mean === null ? 0 : Math.round(s.mean * s.count);
}
