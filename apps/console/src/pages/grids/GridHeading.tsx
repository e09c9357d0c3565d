import formStyles from '../../components/forms.module.css';
import { formatClock } from '../../components/time';
import type { GridDeclaration } from './declarations';
import styles from './grids.module.css';
import type { LiveState } from './use-live';

const LIVE_TEXT: Record<LiveState | 'stale', string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  stopped: 'Not live',
  paused: 'Paused',
  stale: 'Not updating',
};

/** The grid's title and what keeps it fresh: "Live" (the stream), the poll, or Paused, with Pause/Resume. */
export function GridHeading({
  grid,
  title,
  state,
  refusal,
  updatedAt,
  paused,
  onPause,
}: {
  grid: GridDeclaration;
  /** The page's title: the grid's, or for one record's history the record's name. */
  title: string;
  state: LiveState | 'poll' | 'stale';
  refusal: boolean;
  /** When the rows shown were read (0: none yet); said whenever they are not being kept fresh. */
  updatedAt: number;
  paused: boolean;
  onPause: (paused: boolean) => void;
}) {
  const text =
    state === 'poll' && !grid.live.stream
      ? `Refreshed every ${grid.live.pollMilliseconds / 1000} s while visible`
      : LIVE_TEXT[state === 'poll' ? 'live' : state];
  return (
    <div className={styles.heading}>
      <div>
        <h1>{title}</h1>
        <p className={styles.summary}>
          {grid.summary} <span className={styles.member}>GET /api/{grid.name}</span>
        </p>
      </div>
      <div className={styles.live}>
        <span role="status" className={styles.liveState} data-live={state}>
          <span className={styles.dot} aria-hidden="true" />
          <span>
            {text}
            {updatedAt > 0 && state !== 'live' && state !== 'poll' && (
              <span className={styles.updated} data-updated-at={updatedAt}>
                , last updated {formatClock(updatedAt)}
              </span>
            )}
          </span>
        </span>
        {!refusal && (
          <button
            type="button"
            className={formStyles.secondary}
            aria-pressed={paused}
            onClick={() => onPause(!paused)}
          >
            {paused ? 'Resume' : 'Pause'}
          </button>
        )}
      </div>
    </div>
  );
}
