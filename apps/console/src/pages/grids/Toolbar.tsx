import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import formStyles from '../../components/forms.module.css';
import type { GridDeclaration } from './declarations';
import styles from './grids.module.css';
import {
  attemptChanges,
  attemptView,
  DEFAULT_RANGE,
  isoToLocalInput,
  localInputToIso,
  offsetOf,
  RANGES,
  windowChoice,
  type WindowChoice,
} from './toolbar-state';
import { MAX_PAGE_ROWS } from './paging';
import hidden from '../../components/visually-hidden.module.css';

/** Changes to the URL's view: a value, or '' to remove the parameter. */
export type ViewChanges = Record<string, string>;

/**
 * The window: a preset (the last 15 minutes … 7 days, moving with the clock; chosen, it applies at once) or
 * Custom, whose From and To are typed in this browser's zone and sent with its offset.
 */
function WindowTools({
  choice,
  from,
  to,
  onChoose,
  onFrom,
  onTo,
}: {
  choice: WindowChoice;
  from: string;
  to: string;
  onChoose: (v: WindowChoice) => void;
  onFrom: (v: string) => void;
  onTo: (v: string) => void;
}) {
  return (
    <>
      <div className={styles.tool}>
        <label htmlFor="grid-window">Window</label>
        <select id="grid-window" value={choice} onChange={(e) => onChoose(e.target.value as WindowChoice)}>
          {RANGES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
          <option value="custom">Custom (From, To)</option>
        </select>
      </div>
      {choice === 'custom' &&
        (
          [
            ['from', 'From', from, onFrom],
            ['to', 'To', to, onTo],
          ] as const
        ).map(([id, label, value, onChange]) => (
          <div key={id} className={styles.tool}>
            <label htmlFor={`grid-${id}`}>{label}</label>
            <input
              id={`grid-${id}`}
              type="datetime-local"
              step={1}
              value={value}
              onChange={(e) => onChange(e.target.value)}
              aria-describedby="grid-zone"
            />
          </div>
        ))}
    </>
  );
}

/** The grid's exact-match filter (stage or queue), when it has one. */
function FilterTool({
  grid,
  value,
  onChange,
}: {
  grid: GridDeclaration;
  value: string;
  onChange: (v: string) => void;
}) {
  if (!grid.filter) return null;
  return (
    <div className={styles.tool}>
      <label htmlFor="grid-filter">{grid.filter.label}</label>
      <select id="grid-filter" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any</option>
        {grid.filter.options.map((o) => (
          <option key={o.value} value={String(o.value)}>
            {o.value} · {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * The grid's toolbar (spec: from, to, stageId, queueId, search, take; sort is the table's headers). Its
 * state is the URL: a preset applies at once, the rest with Apply, so a view can be bookmarked and shared.
 */
export function Toolbar({
  grid,
  params,
  onApply,
}: {
  grid: GridDeclaration;
  params: URLSearchParams;
  onApply: (changes: ViewChanges) => void;
}) {
  const [choice, setChoice] = useState<WindowChoice>(windowChoice(params));
  const [from, setFrom] = useState(isoToLocalInput(params.get('from')));
  const [to, setTo] = useState(isoToLocalInput(params.get('to')));
  const [filter, setFilter] = useState(grid.filter ? (params.get(grid.filter.param) ?? '') : '');
  const [attempts, setAttempts] = useState(attemptView(grid, params));
  const [search, setSearch] = useState(params.get('search') ?? '');
  const [take, setTake] = useState(params.get('take') ?? '');

  function choose(value: WindowChoice) {
    setChoice(value);
    if (value !== 'custom') onApply({ range: value === DEFAULT_RANGE ? '' : value, from: '', to: '' });
  }

  function apply(event: FormEvent) {
    event.preventDefault();
    onApply({
      ...(choice === 'custom' ? { from: localInputToIso(from), to: localInputToIso(to), range: '' } : {}),
      ...(grid.filter ? { [grid.filter.param]: filter } : {}),
      ...attemptChanges(grid, attempts),
      ...(grid.search ? { search: search.trim() } : {}),
      take: take.trim(),
    });
  }

  return (
    <form className={styles.toolbar} onSubmit={apply} aria-label={`${grid.title} toolbar`}>
      <WindowTools choice={choice} from={from} to={to} onChoose={choose} onFrom={setFrom} onTo={setTo} />
      <FilterTool grid={grid} value={filter} onChange={setFilter} />
      <ViewTools
        grid={grid}
        attempts={attempts}
        onAttempts={setAttempts}
        search={search}
        onSearch={setSearch}
        take={take}
        onTake={setTake}
      />
      <div className={styles.toolActions}>
        <button type="submit" className={formStyles.primary}>
          Apply
        </button>
        <Link to={{ search: '' }} className={formStyles.secondary}>
          Reset
        </Link>
      </div>
      <p id="grid-zone" className={styles.zone}>
        Times are in this browser&apos;s zone (UTC{offsetOf(new Date())}). A preset window moves with the
        clock; empty From and To: the last hour.
      </p>
    </form>
  );
}

/** The views of the attempts (the sign-in audit), search (where the grid has it) and Rows. */
function ViewTools({
  grid,
  attempts,
  onAttempts,
  search,
  onSearch,
  take,
  onTake,
}: {
  grid: GridDeclaration;
  attempts: string;
  onAttempts: (v: string) => void;
  search: string;
  onSearch: (v: string) => void;
  take: string;
  onTake: (v: string) => void;
}) {
  return (
    <>
      {grid.attempts && (
        <div className={styles.tool}>
          <label htmlFor="grid-attempts">Attempts</label>
          <select id="grid-attempts" value={attempts} onChange={(e) => onAttempts(e.target.value)}>
            <option value="">Every attempt</option>
            {grid.attempts.map((view) => (
              <option key={view.param} value={view.param}>
                {view.label}
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
            onChange={(e) => onSearch(e.target.value)}
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
          onChange={(e) => onTake(e.target.value)}
          placeholder="100"
          aria-describedby="grid-take-hint"
        />
        <span id="grid-take-hint" className={hidden.visuallyHidden}>
          Rows per page, at most {MAX_PAGE_ROWS.toLocaleString()}; the statistics and the chart cover the
          whole window whatever this is.
        </span>
      </div>
    </>
  );
}
