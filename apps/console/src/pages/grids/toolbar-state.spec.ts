import { describe, expect, it } from '@jest/globals';
import type { GridDeclaration } from './declarations';
import { formatCell, formatDuration, textOf } from './format';
import { gridQuery, isoToLocalInput, localInputToIso, requestParams, windowChoice } from './toolbar-state';

/** The console's grid logic, with no browser (npm run test:unit). */
const grid = {
  name: 'ArchiverWarning',
  sortable: true,
  filter: { param: 'stageId' },
  search: 'the model',
} as unknown as GridDeclaration;

describe('the grid toolbar state', () => {
  it('keeps only what the grid takes, in a fixed order, and drops the preset under a custom window', () => {
    const url = new URLSearchParams('queueId=3&search=x&stageId=2&range=6h&failed=true&sortField=a');
    expect(gridQuery(grid, url).toString()).toBe('range=6h&stageId=2&search=x&sortField=a');
    const custom = new URLSearchParams('range=6h&from=2026-11-23T10:00:00Z');
    expect(gridQuery(grid, custom).has('range')).toBe(false);
    expect(windowChoice(custom)).toBe('custom');
    expect(windowChoice(new URLSearchParams('range=nonsense'))).toBe('1h');
  });

  it('sends a preset as `from` at the instant asked, the default window as nothing, and never the page', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    const sent = requestParams(new URLSearchParams('range=6h&page=3&search=x'), now);
    expect(Date.parse(sent.get('from') ?? '')).toBe(now - 6 * 3_600_000);
    expect(sent.has('page')).toBe(false);
    expect(sent.has('range')).toBe(false);
    expect(requestParams(new URLSearchParams('range=1h'), now).toString()).toBe('');
  });

  it('round-trips an instant through the datetime-local input, and reads nothing unreadable', () => {
    const iso = localInputToIso('2026-11-23T18:05:00');
    expect(isoToLocalInput(iso)).toBe('2026-11-23T18:05:00');
    expect(localInputToIso('')).toBe('');
    expect(isoToLocalInput('not a date')).toBe('');
  });
});

describe('grid cells', () => {
  it('shows durations in the unit that reads best, and values as text, never as markup', () => {
    expect(formatDuration(850)).toBe('850 µs');
    expect(formatDuration(12_300_000)).toBe('12.3 s');
    expect(formatCell(null, 'text')).toBe('—');
    expect(formatCell(true, 'boolean')).toBe('Yes');
    expect(textOf({ a: '<b>' })).toBe('{"a":"<b>"}');
  });
});
