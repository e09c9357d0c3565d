import { useState, type ReactNode } from 'react';
import styles from './RowDetails.module.css';
import hidden from './visually-hidden.module.css';

/**
 * A table's rows on a phone, as Kibana's and Keycloak's tables do: the key columns stay, the others
 * (`secondaryColumn`) hide below 48rem, and each row's Details button opens the row's other columns beneath it.
 * Tables whose row shows every column from 48rem up pass `phoneOnly`: their Details exist on a phone only.
 */
export const secondaryColumn = styles.secondaryColumn;

/** Which rows have their details open, by the row's key. */
export function useOpenRows(): { isOpen: (key: string) => boolean; toggle: (key: string) => void } {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  return {
    isOpen: (key) => open.has(key),
    toggle: (key) =>
      setOpen((was) => {
        const next = new Set(was);
        if (!next.delete(key)) next.add(key);
        return next;
      }),
  };
}

const phoneClass = (phoneOnly: boolean | undefined, base: string) =>
  phoneOnly ? `${base} ${styles.phoneOnly}` : base;

/** The header of the Details column: named for a screen reader, empty to the eye. */
export function DetailsHeader({ phoneOnly }: { phoneOnly?: boolean }) {
  return (
    <th scope="col" className={phoneClass(phoneOnly, styles.detailsColumn)}>
      <span className={hidden.visuallyHidden}>Details</span>
    </th>
  );
}

/** The row's Details button (its last cell), naming the row it opens. */
export function DetailsCell({
  label,
  detailsId,
  expanded,
  onToggle,
  phoneOnly,
}: {
  label: string;
  detailsId: string;
  expanded: boolean;
  onToggle: () => void;
  phoneOnly?: boolean;
}) {
  return (
    <td className={phoneClass(phoneOnly, styles.detailsColumn)}>
      <button
        type="button"
        className={styles.detailsButton}
        aria-expanded={expanded}
        aria-controls={expanded ? detailsId : undefined}
        aria-label={label}
        onClick={onToggle}
      >
        <span aria-hidden="true">{expanded ? '▾' : '▸'}</span>
      </button>
    </td>
  );
}

export interface Detail {
  key: string;
  label: string;
  value: ReactNode;
  className?: string;
}

/** The opened row beneath its row: each detail with its label, across the table's width. */
export function DetailsRow({
  detailsId,
  detailsFor,
  span,
  details,
  phoneOnly,
}: {
  detailsId: string;
  detailsFor: string;
  span: number;
  details: Detail[];
  phoneOnly?: boolean;
}) {
  return (
    <tr id={detailsId} className={phoneClass(phoneOnly, styles.detailsRow)} data-details-for={detailsFor}>
      <td colSpan={span}>
        <dl className={styles.rowDetails}>
          {details.map((d) => (
            <div key={d.key} data-detail={d.key}>
              <dt>{d.label}</dt>
              <dd className={d.className}>{d.value}</dd>
            </div>
          ))}
        </dl>
      </td>
    </tr>
  );
}
