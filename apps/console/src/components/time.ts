// dateStyle/timeStyle cannot be combined with timeZoneName: the fields are spelled out.
const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'shortOffset',
});
const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** An instant in this browser's time zone, with its offset. */
export function formatDateTime(ms: number): string {
  return dateTime.format(ms);
}

/** The time of day of an instant, in this browser's time zone. */
export function formatTime(ms: number): string {
  return time.format(ms);
}

const instant = new Intl.DateTimeFormat(undefined, {
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

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** The time of day of an instant to the second, in this browser's time zone. */
export function formatClock(ms: number): string {
  return clock.format(ms);
}
