import { Fragment, type ReactNode } from 'react';
import { DetailsCell, DetailsHeader, DetailsRow, secondaryColumn, useOpenRows } from './RowDetails';
import hidden from './visually-hidden.module.css';

export interface KeyedColumn<T> {
  id: string;
  label: string;
  /** Shown on a phone too; the other columns are in the row's details there. */
  keyColumn?: boolean;
  /** A header read by a screen reader only (an actions column). */
  hiddenLabel?: boolean;
  cell: (row: T) => ReactNode;
  className?: string;
}

/**
 * A table whose row shows every column from 48rem up and its key columns on a phone, where each row's
 * Details button (named after the row) opens the other columns, its actions among them.
 */
export function KeyedTable<T>({
  rows,
  columns,
  rowKey,
  rowName,
  rowData,
  className,
  labelledBy,
}: {
  rows: T[];
  columns: KeyedColumn<T>[];
  rowKey: (row: T) => string;
  /** What the Details button of the row says it opens ("the user alice"). */
  rowName: (row: T) => string;
  rowData?: (row: T) => Record<`data-${string}`, string>;
  className?: string;
  labelledBy?: string;
}) {
  const open = useOpenRows();
  const cellClass = (c: KeyedColumn<T>) =>
    [c.keyColumn ? '' : secondaryColumn, c.className ?? ''].filter(Boolean).join(' ') || undefined;
  const others = columns.filter((c) => !c.keyColumn);
  return (
    <table className={className} aria-labelledby={labelledBy}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.id} scope="col" className={cellClass(c)} data-column={c.id}>
              {c.hiddenLabel ? <span className={hidden.visuallyHidden}>{c.label}</span> : c.label}
            </th>
          ))}
          <DetailsHeader phoneOnly />
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const key = rowKey(row);
          const detailsId = `row-details-${key}`;
          return (
            <Fragment key={key}>
              <tr {...rowData?.(row)}>
                {columns.map((c) => (
                  <td key={c.id} className={cellClass(c)}>
                    {c.cell(row)}
                  </td>
                ))}
                <DetailsCell
                  phoneOnly
                  label={`Details of ${rowName(row)}`}
                  detailsId={detailsId}
                  expanded={open.isOpen(key)}
                  onToggle={() => open.toggle(key)}
                />
              </tr>
              {open.isOpen(key) && (
                <DetailsRow
                  phoneOnly
                  detailsId={detailsId}
                  detailsFor={key}
                  span={columns.length + 1}
                  details={others.map((c) => ({
                    key: c.id,
                    label: c.label,
                    value: c.cell(row),
                    className: c.className,
                  }))}
                />
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}
