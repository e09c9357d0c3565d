import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { describeError } from '../../api/problem';
import { formatClock } from '../../components/time';
import styles from './home.module.css';

type Runtime = Schemas['RuntimeDto'];

/** The service exports a new window every 10 seconds. */
const REFRESH = 10_000;
const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString()} ms`;

/**
 * This node's event loop (the landlord's): how long a due callback waited, in the last 10-second window and
 * the last minute, as the metric export has it (nodejs.eventloop.delay.*). Amber past
 * EventLoopDelayWarnMilliseconds, when the service also says so in its log.
 */
export function RuntimeHealth() {
  const answer = useQuery({
    queryKey: ['runtime'],
    queryFn: async ({ signal }): Promise<Runtime> => (await unwrap(api.GET('/api/Runtime', { signal }))).data,
    refetchInterval: REFRESH,
  });
  const r = answer.data;
  const w = r?.eventLoopDelay.endedAt ? r.eventLoopDelay : undefined;
  const worst = r?.eventLoopDelayWorstOfLastMinuteMilliseconds ?? null;
  const held = r !== undefined && worst !== null && worst > r.eventLoopDelayWarnMilliseconds;
  return (
    <section
      className={styles.card}
      aria-labelledby="runtime-title"
      data-figure="event-loop"
      data-tone={held ? 'bad' : undefined}
    >
      <h2 id="runtime-title">This node’s event loop</h2>
      {answer.error ? (
        <p role="alert">{describeError(answer.error)}</p>
      ) : !r ? (
        <p>…</p>
      ) : !w ? (
        <p>The first 10-second window has not ended yet.</p>
      ) : (
        <dl className={styles.facts}>
          <dt>Delay p99</dt>
          <dd data-value={w.p99Milliseconds ?? ''}>{ms(w.p99Milliseconds ?? 0)}</dd>
          <dt>Longest</dt>
          <dd data-value={w.maxMilliseconds ?? ''}>{ms(w.maxMilliseconds ?? 0)}</dd>
          <dt>Longest, last minute</dt>
          <dd data-value={worst ?? ''} className={held ? styles.held : undefined}>
            {worst === null ? '—' : ms(worst)}
            {held ? ` (over ${ms(r.eventLoopDelayWarnMilliseconds)})` : ''}
          </dd>
        </dl>
      )}
      {w && (
        <p className={styles.figureNote}>
          How long a callback that was due waited, in the {w.windowSeconds}-second window to{' '}
          {formatClock(Date.parse(w.endedAt ?? ''))}.
        </p>
      )}
    </section>
  );
}
