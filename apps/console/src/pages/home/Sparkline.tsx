import styles from './home.module.css';

const W = 120;
const H = 28;

/**
 * A figure's trend over the window, in plain SVG: one point per bucket, oldest at the left, from 0 at the
 * bottom to the largest value at the top; a null (nothing measured) breaks the line. Its text alternative
 * says what a reader of the line would see: how many points, the largest and the latest.
 */
export function Sparkline({ values, label }: { values: (number | null)[] | undefined; label: string }) {
  if (!values) return <span className={styles.sparkline} aria-hidden="true" />;
  const top = Math.max(1, ...values.map((v) => v ?? 0));
  const x = (i: number) => (values.length < 2 ? W / 2 : (i / (values.length - 1)) * W);
  const y = (v: number) => H - 1 - (v / top) * (H - 2);
  const segments: string[] = [];
  let current: string[] = [];
  values.forEach((v, i) => {
    if (v === null) {
      if (current.length) segments.push(current.join(' '));
      current = [];
    } else current.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (current.length) segments.push(current.join(' '));
  const latest = [...values].reverse().find((v) => v !== null);
  const measured = values.filter((v): v is number => v !== null);
  const summary = measured.length
    ? `${label}: ${values.length} points, largest ${Math.max(...measured).toLocaleString()}, latest ${(latest ?? 0).toLocaleString()}`
    : `${label}: nothing measured in the window`;
  return (
    <svg
      className={styles.sparkline}
      viewBox={`0 0 ${W} ${H}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={summary}
      data-sparkline={values.map((v) => (v === null ? '' : v)).join(',')}
    >
      {segments.map((points, i) =>
        points.includes(' ') ? (
          <polyline key={i} points={points} className={styles.sparkLine} />
        ) : (
          <circle
            key={i}
            cx={points.split(',')[0]}
            cy={points.split(',')[1]}
            r="1.5"
            className={styles.sparkDot}
          />
        ),
      )}
    </svg>
  );
}
