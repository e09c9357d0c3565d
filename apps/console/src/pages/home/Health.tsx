import { CAPTURE_QUEUE_CAPACITIES, CAPTURE_QUEUE_NAMES } from '@app/declarations';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { describeError } from '../../api/problem';
import { formatClock } from '../../components/time';
import { gridNamed } from '../grids/declarations';
import styles from './home.module.css';
import { invocations, useCountSparkline, useGridFigure, useSparkline, type HealthWindow } from './health';
import { Sparkline } from './Sparkline';

/** The six capture queues (spec: queueId 1–6), named as the grid's Queue filter names them. */
const QUEUES = (gridNamed('CaptureQueueHealth')?.filter?.options ?? []).map((o) => o.label);
const WARNINGS = [
  ['ArchiverWarning', 'Archiver warnings'],
  ['CaseCreationWarning', 'Case creation warnings'],
  ['ModelInvokeWarning', 'Model invoke warnings'],
] as const;
const n = (v: number) => v.toLocaleString();

/** A name like CacheConnectionEvent may wrap between its words, never inside one. */
function camelBreaks(name: string): ReactNode[] {
  return name.split(/(?=[A-Z][a-z])/).flatMap((part, i) => (i === 0 ? [part] : [<wbr key={i} />, part]));
}

/** One figure: a number (or what kept it), a link into the grid it comes from. */
function Figure({
  id,
  label,
  value,
  href,
  error,
  tone,
  spark,
  children,
}: {
  id: string;
  label: string;
  value: number | null | undefined;
  href: string;
  error?: unknown;
  tone?: 'bad';
  /** The figure's trend over the window (undefined while it is read; absent: the figure has none). */
  spark?: { values: (number | null)[] | undefined; label: string };
  children?: ReactNode;
}) {
  return (
    <li className={styles.figure} data-figure={id} data-value={value ?? ''} data-tone={tone}>
      <Link to={href}>
        <span className={styles.figureLabel}>{camelBreaks(label)}</span>
        <span className={styles.figureValue}>
          {error ? '—' : value === null || value === undefined ? '…' : n(value)}
        </span>
      </Link>
      {spark && <Sparkline values={spark.values} label={spark.label} />}
      {error ? <span className={styles.figureNote}>{describeError(error)}</span> : children}
    </li>
  );
}

/**
 * Each capture queue's latest depth against its bound (spec: Limits; beyond it entries are dropped), the drops
 * at that flush, and the depth's trend over the window (the largest per bucket).
 */
function QueueFigure({ queueId, hour }: { queueId: number; hour: HealthWindow }) {
  const filters = { queueId: String(queueId) };
  const { answer, href } = useGridFigure('CaptureQueueHealth', hour, filters);
  const spark = useSparkline('CaptureQueueHealth', hour, filters, 'max');
  const row = answer.data?.rows[0] as
    { queueDepth?: number; droppedCount?: number; createdDate?: string } | undefined;
  const dropped = row?.droppedCount ?? 0;
  const capacity = CAPTURE_QUEUE_CAPACITIES[CAPTURE_QUEUE_NAMES[queueId - 1]];
  const depth = row?.queueDepth ?? 0;
  const share = (depth / capacity) * 100;
  return (
    <Figure
      id={`queue-${queueId}`}
      label={QUEUES[queueId - 1]}
      value={answer.data ? depth : null}
      href={href}
      error={answer.error}
      tone={dropped > 0 || share >= 80 ? 'bad' : undefined}
      spark={{ values: spark.data, label: `${QUEUES[queueId - 1]} depth` }}
    >
      <span className={styles.capacity} data-capacity={capacity}>
        <meter
          min={0}
          max={capacity}
          low={capacity * 0.5}
          high={capacity * 0.8}
          optimum={0}
          value={depth}
          aria-label={`${QUEUES[queueId - 1]}: depth ${n(depth)} of ${n(capacity)}`}
        />
        <span>
          of {n(capacity)} ({share < 1 && depth > 0 ? '<1' : Math.round(share)} %)
        </span>
      </span>
      <span className={styles.figureNote} data-dropped={dropped}>
        {answer.data && !row ? 'no row in the window' : `${n(dropped)} dropped`}
        {row?.createdDate ? ` · at ${formatClock(Date.parse(row.createdDate))}` : ''}
      </span>
    </Figure>
  );
}

/** The landlord's view of the service: queues, warnings and throughput of the last hour, from the grids. */
export function TelemetryHealth({ hour }: { hour: HealthWindow }) {
  return (
    <div>
      <section className={`${styles.card} ${styles.wide}`} aria-labelledby="queues-title">
        <h2 id="queues-title">Capture queues: depth against capacity at the latest flush</h2>
        <ul className={styles.figures}>
          {QUEUES.map((_, i) => (
            <QueueFigure key={i} queueId={i + 1} hour={hour} />
          ))}
        </ul>
      </section>
      <section className={`${styles.card} ${styles.wide}`} aria-labelledby="warnings-title">
        <h2 id="warnings-title">Warnings and throughput, {hour.label.toLowerCase()}</h2>
        <ul className={styles.figures}>
          {WARNINGS.map(([grid, label]) => (
            <WarningFigure key={grid} grid={grid} label={label} hour={hour} />
          ))}
          {THROUGHPUT.map((t) => (
            <ThroughputFigure key={t.id} {...t} hour={hour} />
          ))}
        </ul>
      </section>
    </div>
  );
}

/** Throughput from the stage rollups: the invocations their first stage counted in the hour. */
const THROUGHPUT = [
  {
    id: 'archived',
    label: 'Invocations archived',
    grid: 'ArchiverStagePerformanceCounter',
    stage: 'BuildArchiveJson',
  },
  {
    id: 'cases',
    label: 'Case creations',
    grid: 'CaseCreationStagePerformanceCounter',
    stage: 'ExistingCasePriorityLookup',
  },
];

function ThroughputFigure(p: (typeof THROUGHPUT)[number] & { hour: HealthWindow }) {
  const { answer, href } = useGridFigure(p.grid, p.hour, { stageId: '1' });
  const spark = useSparkline(p.grid, p.hour, { stageId: '1' }, 'sum', 'invokeCount');
  return (
    <Figure
      id={p.id}
      label={p.label}
      value={invocations(answer.data)}
      href={href}
      error={answer.error}
      spark={{ values: spark.data, label: p.label }}
    >
      <span className={styles.figureNote}>{camelBreaks(p.stage)} rollups</span>
    </Figure>
  );
}

function WarningFigure({ grid, label, hour }: { grid: string; label: string; hour: HealthWindow }) {
  const { answer, href } = useGridFigure(grid, hour, {});
  const spark = useSparkline(grid, hour, {}, 'count');
  const total = answer.data?.total;
  return (
    <Figure
      id={grid}
      label={label}
      value={total}
      href={href}
      error={answer.error}
      tone={total ? 'bad' : undefined}
      spark={{ values: spark.data, label }}
    />
  );
}

/**
 * Failed sign-ins of the window: the refusals (the service's refused=true), not the steps that ask the user
 * to continue (an expired password to change, a passcode to give), which a sign-in passes through on its way
 * in. The tenant's own for a tenant administrator: the service scopes them.
 */
function FailedSignIns({ hour }: { hour: HealthWindow }) {
  const filters = { refused: 'true' };
  const refused = useGridFigure('UserLogin', hour, filters);
  const spark = useCountSparkline('UserLogin', hour, filters);
  const total = refused.answer.data?.total;
  return (
    <Figure
      id="failed-sign-ins"
      label="Failed sign-ins"
      value={total}
      href={refused.href}
      error={refused.answer.error}
      tone={total ? 'bad' : undefined}
      spark={{ values: spark, label: 'Failed sign-ins' }}
    >
      <span className={styles.figureNote}>refusals only</span>
    </Figure>
  );
}

/**
 * Users signed in now (GET /api/ActiveSessions): a session that started within the absolute lifetime and was
 * not ended since; the tokens are stateless, so there is no history to draw, and the figure opens Users.
 */
function ActiveSessions() {
  const answer = useQuery({
    queryKey: ['active-sessions'],
    queryFn: async ({ signal }) => (await unwrap(api.GET('/api/ActiveSessions', { signal }))).data,
    refetchInterval: 60_000,
  });
  return (
    <Figure
      id="active-sessions"
      label="Active sessions"
      value={answer.data?.count}
      href="/Security/Users"
      error={answer.error}
    >
      <span className={styles.figureNote}>
        users signed in now{answer.data ? ` · at ${formatClock(Date.parse(answer.data.at))}` : ''}
      </span>
    </Figure>
  );
}

/** Sign-ins as far as the user may see them: failed sign-ins (Read Security Audit), active sessions (users). */
export function SignInHealth({ hour, audit, users }: { hour: HealthWindow; audit: boolean; users: boolean }) {
  return (
    <section className={styles.card} aria-labelledby="sign-ins-title">
      <h2 id="sign-ins-title">Sign-ins and sessions</h2>
      <ul className={styles.figures}>
        {users && <ActiveSessions />}
        {audit && <FailedSignIns hour={hour} />}
      </ul>
    </section>
  );
}
