/**
 * RFC 4180 CSV. A cell that a spreadsheet would read as a formula (starting with =, +, -, @, tab or CR) is
 * prefixed with ' so it is shown as text (no formula injection).
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
  if (typeof value === 'string' && FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** Yields the CSV text in chunks of about `chunkRows` rows: header first. */
export function* csvChunks(
  header: readonly string[],
  rows: readonly Record<string, unknown>[],
  chunkRows = 1000,
): Generator<string> {
  yield csvLine(header);
  for (let i = 0; i < rows.length; i += chunkRows) {
    let chunk = '';
    for (const row of rows.slice(i, i + chunkRows)) chunk += csvLine(header.map((h) => row[h]));
    yield chunk;
  }
}
