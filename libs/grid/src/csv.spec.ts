import { CSV_BYTE_ORDER_MARK, csvCell, csvColumn, csvFileName, csvInstant, csvLine, csvRecord } from './csv';

describe('CSV', () => {
  it('quotes every text cell per RFC 4180; numbers, booleans and empty cells stay bare', () => {
    expect(csvLine(['a', 'b,c', 'd"e', 'f\ng', 1, null, true])).toBe('"a","b,c","d""e","f\ng",1,,true\r\n');
  });
  it('quotes a cell holding the list separator of a ; locale, so it is one cell and no formula (issue 14)', () => {
    expect(csvCell('csvy;=1+1')).toBe('"csvy;=1+1"');
    expect(csvCell('a;b')).toBe('"a;b"');
    expect(csvLine(['x;=1+1', '=1+1;y'])).toBe('"x;=1+1","\'=1+1;y"\r\n');
  });
  it.each(['=SUM(A1)', '+1', '-1+2', '@cmd', '\tx', '\rx'])('neutralises a formula-looking cell %p', (v) => {
    expect(csvCell(v).replace(/^"|"$/g, '').startsWith("'")).toBe(true);
  });
  it('keeps negative numbers as numbers (only text is neutralised)', () => expect(csvCell(-5)).toBe('-5'));
});

describe('the export file (issue 40)', () => {
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
  it('names a capped export: how many of how many', () => {
    expect(csvFileName('UserLogin', 100_000, 100_041)).toBe('UserLogin-newest-100000-of-100041.csv');
    expect(csvFileName('UserLogin', 7, 7)).toBe('UserLogin.csv');
    expect(csvFileName('UserLogin', 0, 0)).toBe('UserLogin.csv');
  });
});
