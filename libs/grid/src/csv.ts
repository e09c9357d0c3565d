/**
 * RFC 4180 CSV. Every text cell is quoted, whatever it holds: a spreadsheet in a locale whose list separator
 * is `;` (German, French, Dutch Excel) splits an unquoted `csvy;=1+1` at the `;` and evaluates `=1+1`.
 * Text is also passed through withoutFormulaStarts, so no cell begins a formula however the file
 * is read. Numbers and booleans stay bare. Only the export is written this way: the stored text is
 * not altered.
 */

/** What makes a spreadsheet cell a formula (or a DDE call) when it comes first. */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);
/** Where a reader may start a new cell or row: the list separators in use (`,`, `;`, tab) and line breaks. */
const CELL_BOUNDARIES = new Set([',', ';', '\t', '\r', '\n']);
/**
 * What a reader may pass over before a cell's first character: a quote it honours or not, and white space of
 * any kind (a spreadsheet trims U+00A0 and U+3000 as it trims a space, and then reads `=` as a formula).
 */
const SKIPPED_BEFORE_CELL = /^["\s]$/u;
const ANY_TRIGGER = /[=+\-@\t\r]/;
const ANY_BOUNDARY = /[,;\t\r\n]/;

/**
 * The text with an apostrophe put before every formula trigger (=, +, -, @, tab, CR) that could be the first
 * character of a cell: at the start, or after a separator or line break, white space (any, U+00A0 and U+3000
 * included) and quotes skipped. A spreadsheet
 * then shows such a cell as text, whether its list separator is `,`, `;` or a tab and whether it honours the
 * quotes (a quoted `";=1+1"` used to be split by a `;` reader into a cell `=1+1"`). A trigger that is
 * itself a boundary (tab, CR) keeps the next character at a cell's start. Text that ends at such a start (`a;`)
 * gets one more apostrophe at its end: otherwise a reader that splits there would take the cell's closing quote
 * for an opening one and read the line break after it as the start of a cell. Nothing else changes.
 */
export function withoutFormulaStarts(text: string): string {
  if (!ANY_TRIGGER.test(text) && !ANY_BOUNDARY.test(text)) return text;
  let out = '';
  let atCellStart = true;
  let afterBoundary = false;
  for (const ch of text) {
    if (atCellStart && FORMULA_TRIGGERS.has(ch)) out += "'";
    out += ch;
    if (CELL_BOUNDARIES.has(ch)) atCellStart = afterBoundary = true;
    else if (!SKIPPED_BEFORE_CELL.test(ch)) atCellStart = afterBoundary = false;
  }
  return atCellStart && afterBoundary ? `${out}'` : out;
}

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const s =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
        ? String(value)
        : value instanceof Date
          ? value.toISOString()
          : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return s;
  return `"${withoutFormulaStarts(s).replace(/"/g, '""')}"`;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

// ---- The export's file: what a spreadsheet needs to open it as the page shows it.

/**
 * The UTF-8 byte-order mark, first in every export: without it Excel on Windows reads the file in the
 * system's ANSI code page and garbles every non-ASCII letter ("Zoë Ñúñez").
 */
export const CSV_BYTE_ORDER_MARK = '\uFEFF';

/** The zone every time of an export is written in; its header says so. */
export const CSV_TIME_ZONE = 'UTC';

/**
 * An instant (ISO 8601 text) as a cell that Excel and LibreOffice read as a date and time:
 * `2026-11-23 18:05:00.123`, in UTC (no `T`, no `Z`: with them both keep the cell as text). Written bare:
 * it holds only digits, `-`, `:`, `.` and a space, so it needs no quotes and cannot be a formula.
 */
export function csvInstant(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * A column of an export: its heading (the label the page shows; times with their zone, durations with their
 * unit, since the file holds the microseconds the page writes in a unit of its choice) and kind.
 */
export interface CsvColumn {
  name: string;
  heading: string;
  kind: 'date' | 'other';
}

export function csvColumn(
  name: string,
  label: string | undefined,
  kind: string,
  micros = false,
): CsvColumn {
  const date = kind === 'date';
  const unit = date ? ` (${CSV_TIME_ZONE})` : micros ? ' (µs)' : '';
  return { name, heading: `${label ?? name}${unit}`, kind: date ? 'date' : 'other' };
}

/** One record of an export: time cells as csvInstant, every other cell as csvCell; CRLF after it. */
export function csvRecord(columns: readonly CsvColumn[], row: Record<string, unknown>): string {
  return `${columns.map((c) => (c.kind === 'date' ? csvInstant(row[c.name]) : csvCell(row[c.name]))).join(',')}\r\n`;
}

/** An instant as a file name holds it (no `:`, which Windows refuses): 2026-11-29T1105Z, to the second when needed. */
function fileInstant(at: Date): string {
  const iso = at.toISOString();
  const seconds = iso.slice(17, 19) === '00' ? '' : iso.slice(17, 19);
  return `${iso.slice(0, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${seconds}Z`;
}

/**
 * The export's file name: the grid's name, its window in UTC, and when the window holds more rows than the
 * export (the newest 100 000 of a larger window, or `take`), how many of how many:
 * `UserLogin_2026-11-29T1100Z_2026-11-29T1200Z-newest-100000-of-100041.csv`.
 */
export function csvFileName(
  grid: string,
  window: { from: Date; to: Date },
  exported: number,
  total: number,
): string {
  const name = `${grid}_${fileInstant(window.from)}_${fileInstant(window.to)}`;
  return exported < total ? `${name}-newest-${exported}-of-${total}.csv` : `${name}.csv`;
}
