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
function useRuntime() {
  return useQuery({
    queryKey: ['runtime'],
    queryFn: async ({ signal }): Promise<Runtime> => (await unwrap(api.GET('/api/Runtime', { signal }))).data,
    refetchInterval: REFRESH,
  });
}

export function RuntimeHealth() {
  const answer = useRuntime();
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

const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];
/** Bytes in the largest unit that keeps the number at least 1 (powers of 1 000, as disks are sold). */
export function formatBytes(bytes: number): string {
  let v = bytes;
  let u = 0;
  for (; v >= 1000 && u < UNITS.length - 1; u++) v /= 1000;
  return `${u === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${UNITS[u]}`;
}

/** The tables shown first: what grows with the load, then the permanent trails. */
/** The tables that grow, by what they hold (the table's name in a tooltip). */
const WATCHED: Record<string, string> = {
  EntityAnalysisModelArchive: 'Archived invocations',
  Case: 'Cases',
  AdminEvent: "Administrators' actions",
  UserLogin: 'Sign-ins',
  UserLogout: 'Sign-outs',
};

/**
 * How much the database holds (the landlord's): the whole database and the tables that grow, as the database's
 * statistics estimate them once a minute (service.database.*); the telemetry tables keep their last 100 000 rows.
 */
export function DatabaseHealth() {
  const answer = useRuntime();
  const d = answer.data?.database;
  const tables = (d?.tables ?? []).filter((t) => t.table in WATCHED);
  return (
    <section className={styles.card} aria-labelledby="database-title" data-figure="database">
      <h2 id="database-title">Database</h2>
      {answer.error ? (
        <p role="alert">{describeError(answer.error)}</p>
      ) : !d?.readAt ? (
        <p>…</p>
      ) : (
        <>
          <dl className={`${styles.facts} ${styles.sizes}`}>
            <dt>Whole database</dt>
            <dd data-value={d.bytes ?? ''}>{d.bytes === null ? '—' : formatBytes(d.bytes)}</dd>
            {tables.map((t) => (
              <FragmentRow key={t.table} name={t.table} rows={t.rows} bytes={t.bytes} />
            ))}
          </dl>
          <p className={styles.figureNote}>
            Rows as the database estimates them, read at {formatClock(Date.parse(d.readAt))}.
          </p>
        </>
      )}
    </section>
  );
}

function FragmentRow({ name, rows, bytes }: { name: string; rows: number | null; bytes: number | null }) {
  return (
    <>
      <dt className={styles.tableName} title={`table ${name}`}>
        {WATCHED[name]}
      </dt>
      <dd data-table={name} data-rows={rows ?? ''}>
        {rows === null ? '—' : `${rows.toLocaleString()} rows`}
        {bytes === null ? '' : ` · ${formatBytes(bytes)}`}
      </dd>
    </>
  );
}
