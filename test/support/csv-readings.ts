/**
 * A CSV export read the ways a spreadsheet may read it: with `,`, `;` or a tab as
 * the list separator, honouring RFC 4180 quotes or not. A reader that honours quotes takes a quoted cell's
 * text (a doubled quote is one), then whatever follows up to the next separator as it stands (what Excel and
 * LibreOffice do with text after a closing quote); one that does not honours nothing, and breaks rows at CR and
 * LF alike. Every cell is returned with its leading white space removed (any: U+00A0 and U+3000 as a space;
 * tab, CR and LF are separators or triggers), as a spreadsheet skips it before it decides whether a cell is a
 * formula.
 */
export interface CsvReading {
  separator: ',' | ';' | '\t';
  quotes: boolean;
}

export const CSV_READINGS: readonly CsvReading[] = ([',', ';', '\t'] as const).flatMap((separator) =>
  [true, false].map((quotes) => ({ separator, quotes })),
);

/** A character that makes a spreadsheet cell a formula (or a DDE call) when it comes first. */
export const FORMULA_TRIGGERS = ['=', '+', '-', '@', '\t', '\r'];

/** Every cell of `text` read the given way, leading white space removed. */
const LEADING_SPACE = /^[^\S\t\r\n]+/u;
const SPACE = /^[^\S\t\r\n]$/u;

export function readCells(text: string, { separator, quotes }: CsvReading): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  let atCellStart = true;
  const end = () => {
    cells.push(cell.replace(LEADING_SPACE, ''));
    cell = '';
    atCellStart = true;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
      continue;
    }
    if (quotes && ch === '"' && atCellStart && cell.trim() === '') {
      quoted = true;
      atCellStart = false;
      continue;
    }
    if (ch === separator || ch === '\n' || (ch === '\r' && (!quotes || text[i + 1] === '\n'))) {
      if (ch === '\r' && quotes) i++;
      end();
      continue;
    }
    cell += ch;
    if (!SPACE.test(ch)) atCellStart = false;
  }
  end();
  return cells;
}

/** A cell a spreadsheet reads as a number (the export writes numbers bare): not a formula. */
const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** The cells of `text`, read every way, that a spreadsheet would take for a formula. */
export function formulaCells(text: string): { reading: string; cell: string }[] {
  const found: { reading: string; cell: string }[] = [];
  for (const reading of CSV_READINGS)
    for (const cell of readCells(text, reading))
      if (FORMULA_TRIGGERS.includes(cell[0] ?? '') && !NUMBER.test(cell))
        found.push({ reading: `${JSON.stringify(reading.separator)}, quotes ${reading.quotes}`, cell });
  return found;
}
