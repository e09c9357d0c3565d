import fc from 'fast-check';
import { formulaCells, readCells } from '../../../test/support/csv-readings';
import { CSV_BYTE_ORDER_MARK, csvCell, csvColumn, csvFileName, csvInstant, csvLine, csvRecord } from './csv';

describe('CSV', () => {
  it('quotes every text cell per RFC 4180; numbers, booleans and empty cells stay bare', () => {
    expect(csvLine(['a', 'b,c', 'd"e', 'f\ng', 1, null, true])).toBe('"a","b,c","d""e","f\ng",1,,true\r\n');
  });
  it('quotes a cell holding the list separator of a ; locale, and neutralises what follows it', () => {
    expect(csvCell('csvy;=1+1')).toBe('"csvy;\'=1+1"');
    expect(csvCell('a;b')).toBe('"a;b"');
    expect(csvLine(['x;=1+1', '=1+1;y'])).toBe('"x;\'=1+1","\'=1+1;y"\r\n');
  });
  it.each(['=SUM(A1)', '+1', '-1+2', '@cmd', '\tx', '\rx'])('neutralises a formula-looking cell %p', (v) => {
    expect(csvCell(v).replace(/^"|"$/g, '').startsWith("'")).toBe(true);
  });
  it('keeps negative numbers as numbers (only text is neutralised)', () => expect(csvCell(-5)).toBe('-5'));
});

describe('no cell of an export starts a formula, however a spreadsheet reads it', () => {
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
    // White space a spreadsheet trims like a space: no-break (U+00A0), ideographic (U+3000), and others.
    '\u00a0=1+1',
    '\u3000=HYPERLINK("http://evil.example")',
    'x;\u00a0\u3000+1',
    '\u2003-1+2',
    'x\n\u00a0@SUM(A1)',
  ];
  it.each(HOSTILE)('%p, read with , ; or tab, honouring quotes or not', (value) => {
    expect(formulaCells(csvLine(['a', value, 5, -5, true]))).toEqual([]);
  });

  const ALPHABET = [
    '=',
    '+',
    '-',
    '@',
    '\t',
    '\r',
    '\n',
    ',',
    ';',
    ' ',
    '\u00a0',
    '\u3000',
    '"',
    "'",
    'a',
    '1',
  ];
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
        const unspaced = (text: string) => text.replace(/'/g, '').replace(/^[^\S\t\r\n]+/u, '');
        expect(unspaced(cell)).toBe(unspaced(value));
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

describe('the export file', () => {
  it('writes instants as spreadsheet date-times in UTC, bare; nothing else for an empty or unreadable one', () => {
    expect(csvInstant('2026-11-23T18:05:00.123Z')).toBe('2026-11-23 18:05:00.123');
    expect(csvInstant('2026-11-23T23:30:00+05:30')).toBe('2026-11-23 18:00:00.000');
    expect(csvInstant(null)).toBe('');
    expect(csvInstant('not a time')).toBe('');
  });
  it('heads each column with its label, times with their zone, and ends each record with CRLF', () => {
    const columns = [
      csvColumn('createdDate', 'When', 'date'),
      csvColumn('createdUser', 'User name', 'string'),
    ];
    expect(columns.map((c) => c.heading)).toEqual(['When (UTC)', 'User name']);
    expect(csvColumn('id', undefined, 'number').heading).toBe('id');
    expect(csvRecord(columns, { createdDate: '2026-01-02T03:04:05.006Z', createdUser: 'Zoë Ñúñez' })).toBe(
      '2026-01-02 03:04:05.006,"Zoë Ñúñez"\r\n',
    );
    expect(CSV_BYTE_ORDER_MARK).toBe('\uFEFF');
    expect(Buffer.from(CSV_BYTE_ORDER_MARK, 'utf8')).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });
  it('names the export by its grid and window (UTC), and a capped one by how many of how many', () => {
    const window = { from: new Date('2026-11-29T11:00:00Z'), to: new Date('2026-11-29T12:00:30.250Z') };
    expect(csvFileName('UserLogin', window, 100_000, 100_041)).toBe(
      'UserLogin_2026-11-29T1100Z_2026-11-29T120030Z-newest-100000-of-100041.csv',
    );
    expect(csvFileName('UserLogin', window, 7, 7)).toBe('UserLogin_2026-11-29T1100Z_2026-11-29T120030Z.csv');
    expect(csvFileName('UserLogin', window, 0, 0)).toBe('UserLogin_2026-11-29T1100Z_2026-11-29T120030Z.csv');
  });
  it('heads a duration held in microseconds with its unit', () => {
    expect(csvColumn('durationMicroseconds', 'Duration', 'number', true).heading).toBe('Duration (µs)');
  });
});
