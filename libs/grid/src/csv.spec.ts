import { csvCell, csvLine } from './csv';

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
