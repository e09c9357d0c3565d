import { useEffect, useState } from 'react';

/** After this long a wait says how long it has lasted, so a slow answer is told from a stuck page. */
const SHOW_AFTER_MS = 1_000;

/**
 * "Loading X…", and from the first second on the time waited ("Loading archiver stages… 8 s"). The seconds
 * are hidden from screen readers: the status is announced once, not every second.
 */
export function Loading({ what, className }: { what: string; className?: string }) {
  const [started] = useState(() => Date.now());
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setElapsed(Date.now() - started), 250);
    return () => clearInterval(timer);
  }, [started]);
  return (
    <p role="status" className={className} data-loading={what}>
      Loading {what}…
      {elapsed >= SHOW_AFTER_MS && (
        <span aria-hidden="true" data-elapsed={Math.floor(elapsed / 1000)}>
          {' '}
          {Math.floor(elapsed / 1000)} s
        </span>
      )}
    </p>
  );
}
