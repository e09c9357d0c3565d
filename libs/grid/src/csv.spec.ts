import fc from 'fast-check';
import { formulaCells, readCells } from '../../../test/support/csv-readings';
import { csvCell, csvLine } from './csv';

describe('CSV', () => {
  it('quotes every text cell per RFC 4180; numbers, booleans and empty cells stay bare', () => {
    expect(csvLine(['a', 'b,c', 'd"e', 'f\ng', 1, null, true])).toBe('"a","b,c","d""e","f\ng",1,,true\r\n');
  });
  it('quotes a cell holding the list separator of a ; locale, and neutralises what follows it (issues 14, 37)', () => {
    expect(csvCell('csvy;=1+1')).toBe('"csvy;\'=1+1"');
    expect(csvCell('a;b')).toBe('"a;b"');
    expect(csvLine(['x;=1+1', '=1+1;y'])).toBe('"x;\'=1+1","\'=1+1;y"\r\n');
  });
  it.each(['=SUM(A1)', '+1', '-1+2', '@cmd', '\tx', '\rx'])('neutralises a formula-looking cell %p', (v) => {
    expect(csvCell(v).replace(/^"|"$/g, '').startsWith("'")).toBe(true);
  });
  it('keeps negative numbers as numbers (only text is neutralised)', () => expect(csvCell(-5)).toBe('-5'));
});

describe('no cell of an export starts a formula, however a spreadsheet reads it (issue 37)', () => {
  const HOSTILE = [
    ';=1+1',
    ' =1+1',
    '  +cmd',
    'x;=1+1',
    'x, +1',
    'a\t@SUM(A1)',
    'x\n-1',
    'x\r\n=1',
    '"=1',
    'x;"=1"',
    'x; " =HYPERLINK("http://evil.example")',
    '\t=1',
    '\r=1',
    'x;\t=1',
    'x\r=1',
    '=1;=2,=3\t=4\n@5',
  ];
  it.each(HOSTILE)('%p, read with , ; or tab, honouring quotes or not', (value) => {
    expect(formulaCells(csvLine(['a', value, 5, -5, true]))).toEqual([]);
  });

  const ALPHABET = ['=', '+', '-', '@', '\t', '\r', '\n', ',', ';', ' ', '"', "'", 'a', '1'];
  it('any text of separators, quotes, spaces and triggers (generated)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 12 }), { maxLength: 4 }),
        (values) => {
          const text = values.map((v) => csvLine([v, v])).join('');
          expect(formulaCells(text)).toEqual([]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('only adds an apostrophe: a reader that honours the quotes gets the text back but for it', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 16 }), (value) => {
        const [cell] = readCells(csvCell(value), { separator: ',', quotes: true });
        expect(cell.replace(/'/g, '').replace(/^ +/, '')).toBe(value.replace(/'/g, '').replace(/^ +/, ''));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves text without a trigger at a cell start unchanged', () => {
    expect(csvCell('Jean-Luc; a-b, c=d')).toBe('"Jean-Luc; a-b, c=d"');
  });

  it('closes text that ends at a cell start, so no reader opens a quote on its closing one', () => {
    expect(csvCell('a;')).toBe('"a;\'"');
    expect(csvCell('\t')).toBe('"\'\t\'"');
  });
});
