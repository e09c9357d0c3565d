import { Histogram } from './charts/Histogram';
import type { ColumnDeclaration } from './declarations';
import { formatDuration, formatNumber, statisticsSum } from './format';
import type { ColumnStatistics } from './grid-types';
import styles from './grids.module.css';
import type { DurationUnit } from './units';

/**
 * One statistics column over the whole filtered window (the service computes it, capped at the newest
 * 100 000 rows): min, max, mean, median, standard deviation, and the ten-bucket histogram drawn.
 */
export function StatisticsPanel({
  column,
  statistics,
  unit,
  sum = false,
}: {
  column: ColumnDeclaration;
  statistics: ColumnStatistics;
  /** The column's unit on this page (durations). */
  unit?: DurationUnit;
  /** Show the column's sum over the window (a count such as invocations). */
  sum?: boolean;
}) {
  const id = `statistics-${column.key}`;
  // Durations in the page's unit for the column (317 852 µs: 318 ms, as in the table and the charts).
  const value = (v: number | null) =>
    v === null
      ? '—'
      : column.format === 'micros' && !unit
        ? formatDuration(v)
        : formatNumber(v, column.format, true, unit);
  return (
    <section className={styles.panel} aria-labelledby={id} data-statistics={column.key}>
      <h3 id={id}>
        {column.label} <span className={styles.member}>{column.key}</span>
      </h3>
      <dl className={styles.figures}>
        <div>
          <dt>Rows</dt>
          <dd>{formatNumber(statistics.count, 'number')}</dd>
        </div>
        {sum && (
          <div>
            <dt>Sum</dt>
            <dd data-sum={statisticsSum(statistics)}>{formatNumber(statisticsSum(statistics), 'number')}</dd>
          </div>
        )}
        <div>
          <dt>Min</dt>
          <dd>{value(statistics.min)}</dd>
        </div>
        <div>
          <dt>Max</dt>
          <dd>{value(statistics.max)}</dd>
        </div>
        <div>
          <dt>Mean</dt>
          <dd>{value(statistics.mean)}</dd>
        </div>
        <div>
          <dt>Median</dt>
          <dd>{value(statistics.median)}</dd>
        </div>
        <div>
          <dt>Std. deviation</dt>
          <dd>{value(statistics.standardDeviation)}</dd>
        </div>
      </dl>
      {statistics.count > 0 ? (
        <Histogram
          id={id}
          label={column.label}
          buckets={statistics.histogram}
          format={column.format}
          unit={unit}
        />
      ) : (
        <p className={styles.empty}>No rows in the window: nothing to draw.</p>
      )}
    </section>
  );
}
