import type { GridDeclaration } from './declarations';

/** The toolbar's parameters as they stand in the URL (and are sent to the service as they are). */
export const TOOLBAR_PARAMS = [
  'from',
  'to',
  'stageId',
  'queueId',
  'search',
  'take',
  'sortField',
  'sortDirection',
] as const;
export type ToolbarParam = (typeof TOOLBAR_PARAMS)[number];

/** The parameters of this grid's request: the toolbar's, from the URL, only those the grid takes. */
export function gridQuery(grid: GridDeclaration, url: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of TOOLBAR_PARAMS) {
    const value = url.get(name);
    if (value === null || value === '') continue;
    if ((name === 'stageId' || name === 'queueId') && grid.filter?.param !== name) continue;
    if (name === 'search' && !grid.search) continue;
    if ((name === 'sortField' || name === 'sortDirection') && !grid.sortable) continue;
    out.set(name, value);
  }
  out.sort();
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
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${offsetOf(date)}`
  );
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
