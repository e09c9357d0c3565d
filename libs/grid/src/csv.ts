/**
 * RFC 4180 CSV. Every text cell is quoted, whatever it holds: a spreadsheet in a locale whose list separator
 * is `;` (German, French, Dutch Excel) splits an unquoted `csvy;=1+1` at the `;` and evaluates `=1+1`
 * (issue 14). A text cell that a spreadsheet would read as a formula (starting with =, +, -, @, tab or CR)
 * is also prefixed with ' so it is shown as text (no formula injection). Numbers and booleans stay bare.
 * Only the export is written this way: the stored text is not altered.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
        ? String(value)
        : value instanceof Date
          ? value.toISOString()
          : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return s;
  if (FORMULA_START.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
