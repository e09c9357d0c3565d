import { useCallback } from 'react';
import { describeError } from '../../api/problem';
import { Alert } from '../../components/Alert';
import { Loading } from '../../components/Loading';
import { TimeSeriesChart } from './charts/TimeSeriesChart';
import { columnLabel, type GridDeclaration } from './declarations';
import styles from './grids.module.css';
import type { DurationUnit } from './units';
import { useGridSeries } from './use-grid-answer';

/**
 * The chart of the grid's main measure over the whole window (not only the rows shown: the service's series
 * endpoint buckets every row of it), and for warnings how many there were beside it; dragging across a chart
 * zooms the page's window to that span.
 */
export function SeriesPanel({
  grid,
  view,
  poll,
  onZoom,
  units,
}: {
  grid: GridDeclaration;
  view: string;
  poll: (status: string) => number | false;
  onZoom: (fromMs: number, toMs: number) => void;
  units: Record<string, DurationUnit>;
}) {
  const series = useGridSeries(grid, view, poll);
  // A grid with one line is named by its measure: the column's label, never the row's member name.
  const label = useCallback((name: string) => columnLabel(grid, name), [grid]);
  const declared = grid.timeSeries;
  if (!declared) return null;
  const per = declared.per ? `, per ${declared.per}` : '';
  const title = `${declared.label} over the whole window${per} (largest per time bucket)`;
  const countTitle = declared.counts
    ? `${declared.counts} over the whole window${per} (how many per time bucket)`
    : '';
  const empty = series.data !== undefined && series.data.series.length === 0;
  return (
    <section className={styles.panel} aria-labelledby="grid-series-title">
      <h2 id="grid-series-title" className={styles.panelTitle}>
        {declared.counts
          ? `${declared.counts} and ${declared.label.toLowerCase()} over the whole window`
          : title}
      </h2>
      {series.isError && <Alert tone="error">{describeError(series.error)}</Alert>}
      {series.isPending && <Loading what="the chart" />}
      {empty && (
        <p className={styles.empty} data-chart="time-series-empty">
          No rows in this window: nothing to draw. Choose a wider window.
        </p>
      )}
      {series.data && !empty && (
        <>
          <div className={declared.counts ? styles.chartPair : undefined}>
            {declared.counts && (
              <div data-series-value="count">
                <h3 className={styles.chartTitle}>{countTitle}</h3>
                <TimeSeriesChart
                  answer={series.data}
                  format="number"
                  title={countTitle}
                  onZoom={onZoom}
                  label={label}
                  value="count"
                />
              </div>
            )}
            <div data-series-value="max">
              {declared.counts && <h3 className={styles.chartTitle}>{title}</h3>}
              <TimeSeriesChart
                answer={series.data}
                format={declared.format}
                title={title}
                onZoom={onZoom}
                unit={units[series.data.measure]}
                label={label}
              />
            </div>
          </div>
          <p className={styles.note}>
            Hover for a bucket&apos;s figures; drag across a chart to zoom into that span; choose a name under
            it to show or hide its line.
          </p>
        </>
      )}
    </section>
  );
}
