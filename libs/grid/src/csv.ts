/**
 * RFC 4180 CSV. Every text cell is quoted, whatever it holds: a spreadsheet in a locale whose list separator
 * is `;` (German, French, Dutch Excel) splits an unquoted `csvy;=1+1` at the `;` and evaluates `=1+1`
 * (issue 14). Text is also passed through withoutFormulaStarts, so no cell begins a formula however the file
 * is read (issue 37). Numbers and booleans stay bare. Only the export is written this way: the stored text is
 * not altered.
 */

/** What makes a spreadsheet cell a formula (or a DDE call) when it comes first. */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);
/** Where a reader may start a new cell or row: the list separators in use (`,`, `;`, tab) and line breaks. */
const CELL_BOUNDARIES = new Set([',', ';', '\t', '\r', '\n']);
/** What a reader may pass over before a cell's first character: spaces, and a quote it honours or not. */
const SKIPPED_BEFORE_CELL = new Set([' ', '"']);
const ANY_TRIGGER = /[=+\-@\t\r]/;
const ANY_BOUNDARY = /[,;\t\r\n]/;

/**
 * The text with an apostrophe put before every formula trigger (=, +, -, @, tab, CR) that could be the first
 * character of a cell: at the start, or after a separator or line break, spaces and quotes skipped. A spreadsheet
 * then shows such a cell as text, whether its list separator is `,`, `;` or a tab and whether it honours the
 * quotes (issue 37: a quoted `";=1+1"` used to be split by a `;` reader into a cell `=1+1"`). A trigger that is
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
    else if (!SKIPPED_BEFORE_CELL.has(ch)) atCellStart = afterBoundary = false;
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
