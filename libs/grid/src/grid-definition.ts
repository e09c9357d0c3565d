/** What a grid declares about itself; the engine does all parsing, filtering, sorting and statistics. */

export type ColumnKind = 'number' | 'string' | 'date' | 'boolean' | 'guid';

export interface GridColumn {
  /** Name in the row JSON and the value accepted by sortField (case-insensitive). */
  name: string;
  /** Database column (allow-listed identifier). */
  column: string;
  kind: ColumnKind;
  /** The column may hold NULL (answered as null). */
  nullable?: boolean;
  /** What a person reads as its heading (the console's label; the CSV export's header). Default: `name`. */
  label?: string;
}

/** A member `decorate` adds to each row (for the OpenAPI row schema). */
export interface DerivedMember {
  name: string;
  kind: ColumnKind;
  nullable?: boolean;
  description?: string;
  /** As GridColumn.label. */
  label?: string;
}

export type GridFilter =
  | { param: string; column: string; type: 'integer'; min: number; max: number }
  | { param: string; column: string; type: 'guid' }
  /** `true` or `false` (any letter case): an exact match on a boolean column (UserLogin's failed). */
  | { param: string; column: string; type: 'boolean'; description: string }
  /**
   * `true` or `false` (any letter case), over a boolean column and a code column: `true` matches the rows whose
   * `column` is true and whose `codeColumn` is none of `except` (or NULL); `false` every other row. `except`
   * comes from code, never from the request (UserLogin's refused: the failures that are not steps to continue).
   */
  | {
      param: string;
      column: string;
      type: 'flagExcept';
      codeColumn: string;
      except: readonly number[];
      description: string;
    };

/**
 * The time series of a grid (GET /api/<Grid>/Series): its main measure per time bucket over the whole
 * filtered window, one series per value of `by` (a stored number column) named by `name`.
 */
export interface GridSeries {
  /** Row JSON name of the measure (a number column). */
  measure: string;
  /** Other number columns the series may measure instead (`measure=`), e.g. a stage rollup's invocations. */
  also?: readonly string[];
  by?: { column: string; name: (value: number) => string | null };
}

export interface GridDefinition {
  /** Route name, e.g. ArchiverStagePerformanceCounter. */
  name: string;
  table: string;
  /** Identity column used for tie-breaks, sampling and change detection. */
  idColumn: string;
  /** from/to apply to it; default order is newest first on it. */
  timeColumn: string;
  columns: GridColumn[];
  filters: GridFilter[];
  /** Columns `search` matches (case-insensitive substring). */
  searchColumns: string[];
  /** Row JSON names of the statistics columns (must be number columns). */
  statistics: string[];
  /** False: sortField/sortDirection are ignored (CaptureQueueHealth). */
  sortable: boolean;
  /** Extra readable members of each row, computed from the row (stageName beside stageId). */
  decorate?: (row: Record<string, unknown>) => Record<string, unknown>;
  /** What `decorate` adds, declared for the row's OpenAPI schema. */
  derived?: readonly DerivedMember[];
  /**
   * Members `decorate` adds that are sortable too, by a stored column (stageName by its stage id): every
   * column a grid shows is sortable.
   */
  sortDerived?: Readonly<Record<string, string>>;
  /** The grid's time series, when it has one (the telemetry grids). */
  series?: GridSeries;
}

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** Definitions are code, but every identifier that reaches SQL is still checked against an allow-list shape. */
export function validateDefinition(d: GridDefinition): GridDefinition {
  const ids = [
    d.table,
    d.idColumn,
    d.timeColumn,
    ...d.columns.map((c) => c.column),
    ...d.filters.flatMap((f) => (f.type === 'flagExcept' ? [f.column, f.codeColumn] : [f.column])),
    ...d.searchColumns,
    ...Object.values(d.sortDerived ?? {}),
    ...(d.series?.by ? [d.series.by.column] : []),
  ];
  for (const id of ids)
    if (!IDENTIFIER.test(id)) throw new Error(`Grid ${d.name}: ${id} is not a plain identifier`);
  for (const f of d.filters)
    if (f.type === 'flagExcept' && (!f.except.length || !f.except.every((c) => Number.isSafeInteger(c))))
      throw new Error(`Grid ${d.name}: filter ${f.param} needs a non-empty list of whole-number codes`);
  const names = new Set(d.columns.map((c) => c.name));
  for (const s of d.statistics) {
    const col = d.columns.find((c) => c.name === s);
    if (!col || col.kind !== 'number')
      throw new Error(`Grid ${d.name}: statistics column ${s} is not a number column`);
  }
  if (names.size !== d.columns.length) throw new Error(`Grid ${d.name}: duplicate column names`);
  for (const m of d.series ? [d.series.measure, ...(d.series.also ?? [])] : [])
    if (d.columns.find((c) => c.name === m)?.kind !== 'number')
      throw new Error(`Grid ${d.name}: series measure ${m} is not a number column`);
  return d;
}
