import { useState, type ReactNode } from 'react';
import type { ColumnDeclaration, GridDeclaration } from './declarations';
import { formatCell, textOf } from './format';
import type { Row } from './grid-api';
import styles from './grids.module.css';
import type { DurationUnit } from './units';

export interface Sort {
  field: string | null;
  direction: 'asc' | 'desc';
}

/** Free text that may be long: it wraps inside a bounded cell rather than widen the table. */
const LONG_TEXT = new Set([
  'message',
  'changeSummary',
  'userAgent',
  'failureMessage',
  'caseKeyValue',
  'destination',
  'targetName',
]);

const numericFormat = (c: ColumnDeclaration) => c.format === 'number' || c.format === 'micros';

/**
 * The rows as the service ordered them. A sortable header asks the service for that order (sortField,
 * sortDirection): a page of rows is never re-sorted here, since the window holds more than the page.
 * The grid's key columns show at every width, the others from 48rem up (a phone shows the key columns
 * only), and the columns a grid keeps for the details only never widen the table; each row's Details button
 * (the last column, so a row reads from its time) opens every column of the row beneath it, as Kibana's and
 * Keycloak's tables do.
 */
export function GridTable({
  grid,
  rows,
  sort,
  onSort,
  units,
}: {
  grid: GridDeclaration;
  rows: Row[];
  /** The unit of each duration column (one per quantity across the page). */
  units: Record<string, DurationUnit>;
  sort: Sort;
  onSort: (field: string) => void;
}) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const shown = grid.columns.filter((c) => !grid.detailsOnly?.includes(c.key));
  const cellClass = (c: ColumnDeclaration) =>
    [
      numericFormat(c) ? styles.numeric : '',
      grid.keyColumns.includes(c.key) ? '' : styles.secondaryColumn,
      grid.wideColumns?.includes(c.key) ? styles.wideColumn : '',
      c.format === 'instant' ? styles.instant : '',
      LONG_TEXT.has(c.key) ? styles.longText : '',
    ]
      .filter(Boolean)
      .join(' ') || undefined;
  const toggle = (key: string) =>
    setOpen((was) => {
      const next = new Set(was);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  return (
    <div className={styles.tableBox} tabIndex={0} role="region" aria-labelledby="grid-rows-title">
      <table className={styles.table}>
        <thead>
          <tr>
            {shown.map((c) => (
              <HeaderCell
                key={c.key}
                grid={grid}
                column={c}
                sort={sort}
                onSort={onSort}
                className={cellClass(c)}
              />
            ))}
            <th scope="col" className={styles.detailsColumn}>
              <span className={styles.visuallyHidden}>Details</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => {
            const key = textOf(row.id) || String(i);
            return (
              <TableRow
                key={key}
                grid={grid}
                row={row}
                index={i}
                shown={shown}
                units={units}
                cellClass={cellClass}
                expanded={open.has(key)}
                onToggle={() => toggle(key)}
              />
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** One row and, when opened, its details beneath it. */
function TableRow({
  grid,
  row,
  index,
  shown,
  units,
  cellClass,
  expanded,
  onToggle,
}: {
  grid: GridDeclaration;
  row: Row;
  index: number;
  shown: ColumnDeclaration[];
  units: Record<string, DurationUnit>;
  cellClass: (c: ColumnDeclaration) => string | undefined;
  expanded: boolean;
  onToggle: () => void;
}) {
  const detailsId = `row-details-${textOf(row.id) || index}`;
  return (
    <>
      <tr data-row-id={textOf(row.id)} className={index % 2 ? styles.evenRow : undefined}>
        {shown.map((c) => (
          <Cell key={c.key} column={c} value={row[c.key]} unit={units[c.key]} className={cellClass(c)} />
        ))}
        <td className={styles.detailsColumn}>
          <button
            type="button"
            className={styles.detailsButton}
            aria-expanded={expanded}
            aria-controls={expanded ? detailsId : undefined}
            aria-label={`Details of row ${index + 1}`}
            onClick={onToggle}
          >
            <span aria-hidden="true">{expanded ? '▾' : '▸'}</span>
          </button>
        </td>
      </tr>
      {expanded && (
        <tr id={detailsId} className={styles.detailsRow} data-details-for={textOf(row.id)}>
          <td colSpan={shown.length + 1}>
            <RowDetails grid={grid} row={row} units={units} />
          </td>
        </tr>
      )}
    </>
  );
}

function HeaderCell({
  grid,
  column: c,
  sort,
  onSort,
  className,
}: {
  grid: GridDeclaration;
  column: ColumnDeclaration;
  sort: Sort;
  onSort: (field: string) => void;
  className: string | undefined;
}) {
  const active = sort.field?.toLowerCase() === c.key.toLowerCase();
  const ariaSort = active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : undefined;
  return (
    <th scope="col" aria-sort={ariaSort} className={className} data-column={c.key}>
      {grid.sortable ? (
        <button
          type="button"
          className={styles.sort}
          onClick={() => onSort(c.key)}
          title={`Sort by ${c.label} on the service`}
        >
          {c.label}
          <span aria-hidden="true" className={styles.arrow}>
            {active ? (sort.direction === 'asc' ? '▲' : '▼') : '↕'}
          </span>
        </button>
      ) : (
        c.label
      )}
    </th>
  );
}

function Cell({
  column: c,
  value,
  unit,
  className,
}: {
  column: ColumnDeclaration;
  value: unknown;
  unit: DurationUnit | undefined;
  className: string | undefined;
}) {
  const text = formatCell(value, c.format, unit);
  if (c.format === 'guid' && typeof value === 'string')
    return (
      <td className={[styles.guid, className].filter(Boolean).join(' ')}>
        <span title={text}>{text.slice(0, 8)}</span>
      </td>
    );
  return <td className={className}>{c.format === 'text' ? dotBreaks(text) : text}</td>;
}

/** A dotted name (UserRegistry.RevokeSessions) may wrap after its dots on a narrow screen, never inside a word. */
function dotBreaks(text: string): ReactNode {
  if (!text.includes('.')) return text;
  return text.split(/(?<=\.)/).flatMap((part, i) => (i === 0 ? [part] : [<wbr key={i} />, part]));
}

/** Every column of one row, with its label, identifiers whole: what the table leaves out at this width. */
function RowDetails({
  grid,
  row,
  units,
}: {
  grid: GridDeclaration;
  row: Row;
  units: Record<string, DurationUnit>;
}) {
  return (
    <dl className={styles.rowDetails}>
      {grid.columns.map((c) => (
        <div key={c.key} data-detail={c.key}>
          <dt>{c.label}</dt>
          <dd className={c.format === 'guid' ? styles.guid : undefined}>
            {formatCell(row[c.key], c.format, units[c.key]) || '—'}
          </dd>
        </div>
      ))}
    </dl>
  );
}
