import formStyles from '../../components/forms.module.css';
import type { GridDeclaration } from './declarations';
import styles from './grids.module.css';
import type { LiveState } from './use-live';

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  stopped: 'Not live',
  paused: 'Paused',
};

/** The grid's title and what keeps it fresh: "Live" (the stream), the poll, or Paused, with Pause/Resume. */
export function GridHeading({
  grid,
  state,
  refusal,
  paused,
  onPause,
}: {
  grid: GridDeclaration;
  state: LiveState | 'poll';
  refusal: boolean;
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
        <h1>{grid.title}</h1>
        <p className={styles.summary}>
          {grid.summary} <span className={styles.member}>GET /api/{grid.name}</span>
        </p>
      </div>
      <div className={styles.live}>
        <span role="status" className={styles.liveState} data-live={state}>
          <span className={styles.dot} aria-hidden="true" />
          {text}
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
