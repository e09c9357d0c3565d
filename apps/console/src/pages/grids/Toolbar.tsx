import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import formStyles from '../../components/forms.module.css';
import type { GridDeclaration } from './declarations';
import styles from './grids.module.css';
import { isoToLocalInput, localInputToIso, offsetOf } from './toolbar-state';

const MAX_TAKE = 100_000;

/**
 * The grid's toolbar (spec: from, to, stageId, queueId, search, take; sort is the table's headers). Its
 * state is the URL: Apply writes the fields into the query, so a view can be bookmarked and shared. Times
 * are typed in this browser's zone and sent as instants with the zone's offset.
 */
export function Toolbar({
  grid,
  params,
  onApply,
}: {
  grid: GridDeclaration;
  params: URLSearchParams;
  onApply: (changes: Record<string, string>) => void;
}) {
  const [from, setFrom] = useState(isoToLocalInput(params.get('from')));
  const [to, setTo] = useState(isoToLocalInput(params.get('to')));
  const [filter, setFilter] = useState(grid.filter ? (params.get(grid.filter.param) ?? '') : '');
  const [search, setSearch] = useState(params.get('search') ?? '');
  const [take, setTake] = useState(params.get('take') ?? '');
  const offset = offsetOf(new Date());

  function apply(event: FormEvent) {
    event.preventDefault();
    onApply({
      from: localInputToIso(from),
      to: localInputToIso(to),
      ...(grid.filter ? { [grid.filter.param]: filter } : {}),
      ...(grid.search ? { search: search.trim() } : {}),
      take: take.trim(),
    });
  }

  return (
    <form className={styles.toolbar} onSubmit={apply} aria-label={`${grid.title} toolbar`}>
      <div className={styles.tool}>
        <label htmlFor="grid-from">From</label>
        <input
          id="grid-from"
          type="datetime-local"
          step={1}
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          aria-describedby="grid-zone"
        />
      </div>
      <div className={styles.tool}>
        <label htmlFor="grid-to">To</label>
        <input
          id="grid-to"
          type="datetime-local"
          step={1}
          value={to}
          onChange={(e) => setTo(e.target.value)}
          aria-describedby="grid-zone"
        />
      </div>
      {grid.filter && (
        <div className={styles.tool}>
          <label htmlFor="grid-filter">{grid.filter.label}</label>
          <select id="grid-filter" value={filter} onChange={(e) => setFilter(e.target.value)}>
            <option value="">Any</option>
            {grid.filter.options.map((o) => (
              <option key={o.value} value={String(o.value)}>
                {o.value} · {o.label}
              </option>
            ))}
          </select>
        </div>
      )}
      {grid.search && (
        <div className={`${styles.tool} ${styles.grow}`}>
          <label htmlFor="grid-search">Search</label>
          <input
            id="grid-search"
            type="search"
            value={search}
            maxLength={256}
            onChange={(e) => setSearch(e.target.value)}
            placeholder={`Part of ${grid.search}`}
          />
        </div>
      )}
      <div className={styles.tool}>
        <label htmlFor="grid-take">Rows</label>
        <input
          id="grid-take"
          className={styles.take}
          inputMode="numeric"
          value={take}
          onChange={(e) => setTake(e.target.value)}
          placeholder="100"
          aria-describedby="grid-take-hint"
        />
        <span id="grid-take-hint" className={styles.visuallyHidden}>
          At most {MAX_TAKE.toLocaleString()} rows; the statistics cover the whole window whatever this is.
        </span>
      </div>
      <div className={styles.toolActions}>
        <button type="submit" className={formStyles.primary}>
          Apply
        </button>
        <Link to={{ search: '' }} className={formStyles.secondary} reloadDocument={false}>
          Reset
        </Link>
      </div>
      <p id="grid-zone" className={styles.zone}>
        Times are in this browser&apos;s zone (UTC{offset}). Empty From and To: the last hour, moving with the
        clock.
      </p>
    </form>
  );
}
