import { chunked, findInChunks, IN_LIST_CHUNK, PARAMETER_LIMITS, rowsPerStatement } from './parameter-limits';

describe('statement size limits', () => {
  it('keeps every multi-row statement within the dialect parameter limit and SQL Server within 1000 rows', () => {
    for (const provider of ['sqlite', 'postgres', 'mssql'] as const) {
      for (const columns of [1, 6, 9, 13]) {
        const rows = rowsPerStatement(provider, columns);
        expect(rows * columns).toBeLessThanOrEqual(PARAMETER_LIMITS[provider]);
        expect((rows + 1) * columns > PARAMETER_LIMITS[provider] || rows === 1000).toBe(true);
      }
    }
    expect(rowsPerStatement('sqlite', 9)).toBe(3640);
    expect(rowsPerStatement('postgres', 9)).toBe(7281);
    expect(rowsPerStatement('mssql', 9)).toBe(233);
    expect(rowsPerStatement('mssql', 1)).toBe(1000);
  });

  it('cuts a list into slices of at most the size, in order', () => {
    expect(chunked([], 3)).toEqual([]);
    expect(chunked([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(() => chunked([1], 0)).toThrow(RangeError);
  });

  it('looks a long id list up in IN_LIST_CHUNK slices, one after another, without duplicates', async () => {
    const seen: number[][] = [];
    let running = 0;
    const found = await findInChunks(
      [...Array.from({ length: 2 * IN_LIST_CHUNK + 1 }, (_, i) => i), 0, 1],
      async (chunk) => {
        expect(++running).toBe(1);
        seen.push(chunk);
        await new Promise((r) => setImmediate(r));
        running--;
        return chunk.map((id) => `row ${id}`);
      },
    );
    expect(seen.map((c) => c.length)).toEqual([IN_LIST_CHUNK, IN_LIST_CHUNK, 1]);
    expect(found).toHaveLength(2 * IN_LIST_CHUNK + 1);
    expect(found[2 * IN_LIST_CHUNK]).toBe(`row ${2 * IN_LIST_CHUNK}`);
    expect(IN_LIST_CHUNK).toBeLessThan(PARAMETER_LIMITS.mssql);
    const none = await findInChunks([], () => Promise.reject(new Error('no statement for an empty list')));
    expect(none).toEqual([]);
  });
});
