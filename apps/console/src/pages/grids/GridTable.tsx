import type { ReactNode } from 'react';
import {
  DetailsCell,
  DetailsHeader,
  DetailsRow,
  secondaryColumn,
  useOpenRows,
  type Detail,
} from '../../components/RowDetails';
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
  const open = useOpenRows();
  const shown = grid.columns.filter((c) => !grid.detailsOnly?.includes(c.key));
  const cellClass = (c: ColumnDeclaration) =>
    [
      numericFormat(c) ? styles.numeric : '',
      grid.keyColumns.includes(c.key) ? '' : secondaryColumn,
      grid.wideColumns?.includes(c.key) ? styles.wideColumn : '',
      c.format === 'instant' ? styles.instant : '',
      LONG_TEXT.has(c.key) ? styles.longText : '',
    ]
      .filter(Boolean)
      .join(' ') || undefined;
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
            <DetailsHeader />
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
                expanded={open.isOpen(key)}
                onToggle={() => open.toggle(key)}
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
        <DetailsCell
          label={`Details of row ${index + 1}`}
          detailsId={detailsId}
          expanded={expanded}
          onToggle={onToggle}
        />
      </tr>
      {expanded && (
        <DetailsRow
          detailsId={detailsId}
          detailsFor={textOf(row.id)}
          span={shown.length + 1}
          details={rowDetails(grid, row, units)}
        />
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
function rowDetails(grid: GridDeclaration, row: Row, units: Record<string, DurationUnit>): Detail[] {
  return grid.columns.map((c) => ({
    key: c.key,
    label: c.label,
    value: formatCell(row[c.key], c.format, units[c.key]) || '—',
    className: c.format === 'guid' ? styles.guid : undefined,
  }));
}
