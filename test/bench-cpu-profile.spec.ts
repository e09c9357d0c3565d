import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { largestDifferences, type LoadWindow, tallyProfile } from '../bench/cpu-profile';

/**
 * bench:profile's reading of a V8 CPU profile: samples split by time window, idle left out, a function's own
 * time and its time with what it called, per answer. A small profile whose every figure is known.
 */
describe('bench/cpu-profile', () => {
  const root = join(__dirname, '..');
  const frame = (functionName: string, url = '', lineNumber = -1) => ({ functionName, url, lineNumber });
  // (root) → handle (project file) → query (a package) → query again (recursion); (root) → (idle)
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 5] },
      { id: 2, callFrame: frame('handle', `file://${root}/libs/auth/src/guard.js`, 9), children: [3] },
      { id: 3, callFrame: frame('query', `file://${root}/node_modules/typeorm/runner.js`, 0), children: [4] },
      { id: 4, callFrame: frame('query', `file://${root}/node_modules/typeorm/runner.js`, 0) },
      { id: 5, callFrame: frame('(idle)') },
    ],
    startTime: 1_000,
    // samples at 1 010, 1 020, 1 030, 1 040, 1 050, 1 060 (each lasting until the next)
    samples: [2, 3, 4, 5, 2, 3],
    timeDeltas: [10, 10, 10, 10, 10, 10],
  };
  let dir: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cpu-profile-'));
    file = join(dir, 'CPU.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts only the samples inside each group of windows, per answer, idle apart', () => {
    const windows = new Map<string, LoadWindow[]>([
      // 1 010, 1 020, 1 030 (handle, query, query's recursion) and 1 040 (idle)
      ['first', [{ start: 1_010, end: 1_045, answers: 2 }]],
      // 1 050 only: the last sample (1 060) has no next one to say how long it lasted
      ['second', [{ start: 1_045, end: 2_000, answers: 1 }]],
    ]);
    const tallies = tallyProfile(file, windows);
    const first = tallies.get('first')!;
    expect(first.answers).toBe(2);
    expect(first.busy).toBe(15); // 30 µs of handle/query over 2 answers
    expect(first.idle).toBe(5);
    expect(first.self.get('handle libs/auth/src/guard.js:10')).toBe(5);
    expect(first.self.get('query typeorm/runner.js:1')).toBe(10);
    // a recursive function counted once per sample; handle includes what it called
    expect(first.inclusive.get('query typeorm/runner.js:1')).toBe(10);
    expect(first.inclusive.get('handle libs/auth/src/guard.js:10')).toBe(15);
    expect(first.inclusive.has('(root)')).toBe(false);
    expect(first.groups.get('typeorm')).toBe(10);
    expect(first.groups.get('libs/auth/src/guard.js')).toBe(5);

    const second = tallies.get('second')!;
    expect(second.busy).toBe(10);
    expect(second.self.get('handle libs/auth/src/guard.js:10')).toBe(10);
    expect(second.self.has('query typeorm/runner.js:1')).toBe(false);
  });

  it('orders differences by their size either way', () => {
    const base = new Map([
      ['a', 1],
      ['b', 10],
    ]);
    const other = new Map([
      ['a', 4],
      ['b', 5],
      ['c', 2],
    ]);
    expect(largestDifferences(base, other, 2)).toEqual([
      { name: 'b', base: 10, other: 5, more: -5 },
      { name: 'a', base: 1, other: 4, more: 3 },
    ]);
  });
});
