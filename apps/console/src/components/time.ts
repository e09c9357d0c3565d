// dateStyle/timeStyle cannot be combined with timeZoneName: the fields are spelled out. Every time of day is
// written in one 24-hour form (hourCycle h23) whatever the locale's habit, so the charts, the tables and the
// figures read alike; the zone is the browser's, and the pages say which.
const H23 = { hourCycle: 'h23' } as const;
const dateTime = new Intl.DateTimeFormat(undefined, {
  ...H23,
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'shortOffset',
});
const time = new Intl.DateTimeFormat(undefined, { ...H23, hour: '2-digit', minute: '2-digit' });

/** An instant in this browser's time zone, with its offset. */
export function formatDateTime(ms: number): string {
  return dateTime.format(ms);
}

/** The time of day of an instant, in this browser's time zone. */
export function formatTime(ms: number): string {
  return time.format(ms);
}

const instant = new Intl.DateTimeFormat(undefined, {
  ...H23,
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'shortOffset',
});

/** An instant to the second, in this browser's time zone, with its offset (the grids' times). */
export function formatInstant(ms: number): string {
  return instant.format(ms);
}

const clock = new Intl.DateTimeFormat(undefined, {
  ...H23,
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** The time of day of an instant to the second, in this browser's time zone. */
export function formatClock(ms: number): string {
  return clock.format(ms);
}

const dayAndTime = new Intl.DateTimeFormat(undefined, {
  ...H23,
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** A chart's time label: the time of day (24-hour), with the day when the window spans more than one. */
export function formatAxisTime(ms: number, withDay: boolean): string {
  return (withDay ? dayAndTime : time).format(ms);
}
