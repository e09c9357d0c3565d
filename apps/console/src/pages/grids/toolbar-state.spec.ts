import { describe, expect, it } from '@jest/globals';
import type { GridDeclaration } from './declarations';
import { formatCell, formatDuration, textOf } from './format';
import { gridNamed } from './declarations';
import {
  attemptChanges,
  attemptView,
  gridQuery,
  isoToLocalInput,
  localInputToIso,
  requestParams,
  windowChoice,
} from './toolbar-state';

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

  it('the sign-in audit keeps its views of the attempts (failed, refused); other grids drop them', () => {
    const audit = gridNamed('UserLogin')!;
    const url = new URLSearchParams('refused=true&failed=true&stageId=2&search=x');
    expect(gridQuery(audit, url).toString()).toBe('failed=true&refused=true&search=x');
    expect(gridQuery(grid, url).toString()).toBe('stageId=2&search=x');
    // both true is what the service answers for refused=true: the narrower view is the one shown
    expect(attemptView(audit, url)).toBe('refused');
    expect(attemptView(audit, new URLSearchParams('failed=true'))).toBe('failed');
    expect(attemptView(audit, new URLSearchParams('refused=false'))).toBe('');
    expect(attemptChanges(audit, 'refused')).toEqual({ refused: 'true', failed: '' });
    expect(attemptChanges(audit, '')).toEqual({ refused: '', failed: '' });
    expect(attemptChanges(grid, 'refused')).toEqual({});
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
