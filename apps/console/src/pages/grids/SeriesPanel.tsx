import { Alert } from '../../components/Alert';
import { describeError } from '../../api/problem';
import { TimeSeriesChart } from './charts/TimeSeriesChart';
import type { GridDeclaration } from './declarations';
import styles from './grids.module.css';
import { useGridSeries } from './use-grid-answer';

/**
 * The chart of the grid's main measure over the whole window (not only the rows shown: the service's series
 * endpoint buckets every row of it); dragging across it zooms the page's window to that span.
 */
export function SeriesPanel({
  grid,
  view,
  poll,
  onZoom,
}: {
  grid: GridDeclaration;
  view: string;
  poll: (status: string) => number | false;
  onZoom: (fromMs: number, toMs: number) => void;
}) {
  const series = useGridSeries(grid, view, poll);
  const declared = grid.timeSeries;
  if (!declared) return null;
  const title = `${declared.label} over the whole window${declared.per ? `, per ${declared.per}` : ''} (largest per time bucket)`;
  const empty = series.data !== undefined && series.data.series.length === 0;
  return (
    <section className={styles.panel} aria-labelledby="grid-series-title">
      <h2 id="grid-series-title" className={styles.panelTitle}>
        {title}
      </h2>
      {series.isError && <Alert tone="error">{describeError(series.error)}</Alert>}
      {series.isPending && <p role="status">Loading the chart…</p>}
      {empty && (
        <p className={styles.empty} data-chart="time-series-empty">
          No rows in this window: nothing to draw. Choose a wider window.
        </p>
      )}
      {series.data && !empty && (
        <>
          <TimeSeriesChart answer={series.data} format={declared.format} title={title} onZoom={onZoom} />
          <p className={styles.note}>
            Hover for a bucket&apos;s figures; drag across the chart to zoom into that span.
          </p>
        </>
      )}
    </section>
  );
}
