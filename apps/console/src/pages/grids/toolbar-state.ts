import type { GridDeclaration } from './declarations';
import { pageRows } from './paging';

/** The time ranges the toolbar offers; each is the last span of time up to now, moving with the clock. */
export const RANGES = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '6h', label: 'Last 6 hours', ms: 6 * 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 3_600_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * 3_600_000 },
] as const;
/** The service's own default window (spec: from one hour back, to now): no parameter needed for it. */
export const DEFAULT_RANGE = '1h';
export type WindowChoice = (typeof RANGES)[number]['value'] | 'custom';

/**
 * The page's parameters as they stand in the URL, in a fixed order. `range` (a preset) becomes `from` when
 * the request is sent; `page` is the page's own count of "older rows" pages, never sent.
 */
export const URL_PARAMS = [
  'range',
  'from',
  'to',
  'stageId',
  'queueId',
  'failed',
  'refused',
  'targetGuid',
  'search',
  'take',
  'sortField',
  'sortDirection',
  'beforeTime',
  'beforeId',
  'page',
] as const;
export type UrlParam = (typeof URL_PARAMS)[number];

/** The "older rows" position: changed by the pager, cleared by any other change of the view. */
export const PAGING_PARAMS = ['beforeTime', 'beforeId', 'page'] as const;

/** Whether this grid takes the parameter (a filter it has, search, sort, a view of the attempts). */
function takes(grid: GridDeclaration, name: UrlParam): boolean {
  if (name === 'stageId' || name === 'queueId') return grid.filter?.param === name;
  if (name === 'search') return grid.search !== undefined;
  if (name === 'sortField' || name === 'sortDirection') return grid.sortable;
  if (name === 'failed' || name === 'refused')
    return grid.attempts?.some((view) => view.param === name) === true;
  if (name === 'targetGuid') return grid.targetHistory === true;
  return true;
}

/** The view this URL shows, for this grid: only what it takes, in a fixed order (the query's cache key). */
export function gridQuery(grid: GridDeclaration, url: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of URL_PARAMS) {
    const value = url.get(name);
    if (value !== null && value !== '' && takes(grid, name)) out.set(name, value);
  }
  if (out.has('from') || out.has('to')) out.delete('range');
  // Rows is a page's size: never more than a page shows (an old bookmark's take=100000 reads as the most).
  if (out.has('take')) out.set('take', String(pageRows(out.get('take'))));
  return out;
}

/**
 * The view of the attempts the URL holds: the first of the grid's views whose parameter is `true` (the
 * narrowest first, so failed=true&refused=true reads as the refusals, which is what the service answers), or ''.
 */
export function attemptView(grid: GridDeclaration, url: URLSearchParams): string {
  return grid.attempts?.find((view) => url.get(view.param) === 'true')?.param ?? '';
}

/** The URL's changes for a view of the attempts ('' : every attempt): its parameter true, the others removed. */
export function attemptChanges(grid: GridDeclaration, chosen: string): Record<string, string> {
  return Object.fromEntries(
    (grid.attempts ?? []).map((view) => [view.param, view.param === chosen ? 'true' : '']),
  );
}

/** The window the URL holds: a preset, or custom From/To. */
export function windowChoice(url: URLSearchParams): WindowChoice {
  if (url.get('from') || url.get('to')) return 'custom';
  return RANGES.find((r) => r.value === url.get('range'))?.value ?? DEFAULT_RANGE;
}

/**
 * What is sent to the service for a view, at the instant `now`: a preset as `from` (now minus its span; `to`
 * left to the service, so the window keeps moving with every refresh); the page count stays in the page.
 */
export function requestParams(
  view: URLSearchParams,
  now: number,
  without: readonly string[] = [],
): URLSearchParams {
  const out = new URLSearchParams(view);
  const range = RANGES.find((r) => r.value === out.get('range'));
  out.delete('range');
  out.delete('page');
  if (range && range.value !== DEFAULT_RANGE) out.set('from', isoWithOffset(new Date(now - range.ms)));
  for (const name of without) out.delete(name);
  return out;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** The browser zone's offset at an instant, as ±hh:mm. */
export function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  return `${minutes < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

/** An instant as ISO 8601 in the browser's zone, with its offset: 2026-11-23T18:05:00+01:00. */
export function isoWithOffset(date: Date): string {
  return `${isoToLocalInput(date.toISOString())}${offsetOf(date)}`;
}

/** A datetime-local input's value (browser zone, no offset) as an instant with its offset; '' stays ''. */
export function localInputToIso(value: string): string {
  if (!value) return '';
  const date = new Date(value); // a date-time without an offset is local time (ECMAScript)
  return Number.isNaN(date.getTime()) ? '' : isoWithOffset(date);
}

/** An instant from the URL as a datetime-local input's value in the browser's zone; unreadable: ''. */
export function isoToLocalInput(value: string | null): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}
