import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { describeError } from '../../api/problem';
import { formatClock } from '../../components/time';
import { gridNamed } from '../grids/declarations';
import styles from './home.module.css';
import { invocations, useGridFigure, type HealthWindow } from './health';

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
  children,
}: {
  id: string;
  label: string;
  value: number | null | undefined;
  href: string;
  error?: unknown;
  tone?: 'bad';
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
      {error ? <span className={styles.figureNote}>{describeError(error)}</span> : children}
    </li>
  );
}

/** Each capture queue's latest depth and drops (spec: a depth that never falls, or any drop, is trouble). */
function QueueFigure({ queueId, hour }: { queueId: number; hour: HealthWindow }) {
  const { answer, href } = useGridFigure('CaptureQueueHealth', hour, { queueId: String(queueId) });
  const row = answer.data?.rows[0] as
    { queueDepth?: number; droppedCount?: number; createdDate?: string } | undefined;
  const dropped = row?.droppedCount ?? 0;
  return (
    <Figure
      id={`queue-${queueId}`}
      label={QUEUES[queueId - 1]}
      value={answer.data ? (row?.queueDepth ?? 0) : null}
      href={href}
      error={answer.error}
      tone={dropped > 0 ? 'bad' : undefined}
    >
      <span className={styles.figureNote} data-dropped={dropped}>
        {answer.data && !row ? 'no row in the last hour' : `${n(dropped)} dropped`}
        {row?.createdDate ? ` · at ${formatClock(Date.parse(row.createdDate))}` : ''}
      </span>
    </Figure>
  );
}

/** The landlord's view of the service: queues, warnings and throughput of the last hour, from the grids. */
export function TelemetryHealth({ hour }: { hour: HealthWindow }) {
  return (
    <>
      <section className={`${styles.card} ${styles.wide}`} aria-labelledby="queues-title">
        <h2 id="queues-title">Capture queues: depth and drops at the latest flush</h2>
        <ul className={styles.figures}>
          {QUEUES.map((_, i) => (
            <QueueFigure key={i} queueId={i + 1} hour={hour} />
          ))}
        </ul>
      </section>
      <section className={`${styles.card} ${styles.wide}`} aria-labelledby="warnings-title">
        <h2 id="warnings-title">Warnings and throughput in the last hour</h2>
        <ul className={styles.figures}>
          {WARNINGS.map(([grid, label]) => (
            <WarningFigure key={grid} grid={grid} label={label} hour={hour} />
          ))}
          {THROUGHPUT.map((t) => (
            <ThroughputFigure key={t.id} {...t} hour={hour} />
          ))}
        </ul>
      </section>
    </>
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
  return (
    <Figure id={p.id} label={p.label} value={invocations(answer.data)} href={href} error={answer.error}>
      <span className={styles.figureNote}>{p.stage} rollups</span>
    </Figure>
  );
}

function WarningFigure({ grid, label, hour }: { grid: string; label: string; hour: HealthWindow }) {
  const { answer, href } = useGridFigure(grid, hour, {});
  const total = answer.data?.total;
  return (
    <Figure
      id={grid}
      label={label}
      value={total}
      href={href}
      error={answer.error}
      tone={total ? 'bad' : undefined}
    />
  );
}

/**
 * Failed sign-ins of the last hour: the refusals (the service's refused=true), not the steps that ask the user
 * to continue (an expired password to change, a passcode to give), which a sign-in passes through on its way
 * in. The tenant's own for a tenant administrator: the service scopes them.
 */
export function SignInHealth({ hour }: { hour: HealthWindow }) {
  const refused = useGridFigure('UserLogin', hour, { refused: 'true' });
  const total = refused.answer.data?.total;
  return (
    <section className={styles.card} aria-labelledby="sign-ins-title">
      <h2 id="sign-ins-title">Sign-ins in the last hour</h2>
      <ul className={styles.figures}>
        <Figure
          id="failed-sign-ins"
          label="Failed sign-ins"
          value={total}
          href={refused.href}
          error={refused.answer.error}
          tone={total ? 'bad' : undefined}
        >
          <span className={styles.figureNote}>refusals only</span>
        </Figure>
      </ul>
    </section>
  );
}
