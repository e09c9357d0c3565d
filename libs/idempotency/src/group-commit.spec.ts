import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('writes the items of one turn together, at most maxRows a write, each caller getting its own result', async () => {
    const writes: number[][] = [];
    const batch = new GroupCommit<number, number>((items) => {
      writes.push([...items]);
      return Promise.resolve(items.map((n) => n * 10));
    }, 3);
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => batch.add(n)));
    expect(results).toEqual([10, 20, 30, 40, 50]);
    expect(writes).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(await batch.add(6)).toBe(60);
    expect(writes).toHaveLength(3);
  });

  it("fails every item of a failed write with its error, and only that write's items", async () => {
    const batch = new GroupCommit<number, number>((items) => {
      if (items.includes(1)) throw new Error('the database refused');
      return Promise.resolve(items.map(() => 0));
    }, 2);
    const settled = await Promise.allSettled([1, 2, 3].map((n) => batch.add(n)));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((settled[0] as PromiseRejectedResult).reason).toEqual(new Error('the database refused'));
  });

  it('with keyOf, writes one row a key (the last added) and gives its result to every caller of the key', async () => {
    const writes: string[][] = [];
    const batch = new GroupCommit<string, string>(
      (items) => {
        writes.push([...items]);
        return Promise.resolve(items.map((s) => s.toUpperCase()));
      },
      2,
      (s) => s[0],
    );
    const results = await Promise.all(['a1', 'b1', 'a2', 'c1', 'a3'].map((s) => batch.add(s)));
    expect(writes).toEqual([['a3', 'b1'], ['c1']]);
    expect(results).toEqual(['A3', 'B1', 'A3', 'C1', 'A3']);
  });
});
