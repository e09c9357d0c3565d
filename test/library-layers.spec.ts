import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * The layering of docs/ARCHITECTURE.md, read from the import statements of the libraries' own code (specs
 * aside: a test may stand on a higher library to build its case).
 */
const ROOT = join(__dirname, '..');
/** The small libraries every feature stands on, lowest first: each imports only those before it. */
const FOUNDATION = ['problems', 'input-rules', 'runtime', 'http-edge', 'access'];

const libraries = readdirSync(join(ROOT, 'libs'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Every module a file names: import/export … from, import(), require(). */
function specifiersOf(text: string): string[] {
  const found = text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)'([^']+)'/gm);
  return [...found].map((m) => m[1]);
}

interface Import {
  file: string;
  target: string;
}

/** For each library, the other libraries it imports, and the imports that leave libs/ for an app. */
function readImports(): { uses: Map<string, Set<string>>; intoApps: Import[]; across: Import[] } {
  const uses = new Map<string, Set<string>>();
  const intoApps: Import[] = [];
  const across: Import[] = [];
  for (const lib of libraries) {
    const own = join(ROOT, 'libs', lib);
    const set = new Set<string>();
    for (const path of sourcesOf(join(own, 'src'))) {
      const file = relative(ROOT, path).split(sep).join('/');
      for (const target of specifiersOf(readFileSync(path, 'utf8'))) {
        const alias = /^@app\/([\w-]+)/.exec(target);
        if (alias && alias[1] !== lib) set.add(alias[1]);
        if (!target.startsWith('.')) continue;
        const to = relative(ROOT, resolve(path, '..', target))
          .split(sep)
          .join('/');
        if (to.startsWith('apps/')) intoApps.push({ file, target });
        else if (!to.startsWith(`libs/${lib}/`)) across.push({ file, target });
      }
    }
    uses.set(lib, set);
  }
  return { uses, intoApps, across };
}

/** The cycles of the graph, each as `a > b > a` (depth-first, one per back edge). */
function cyclesOf(uses: Map<string, Set<string>>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (lib: string, path: string[]) => {
    state.set(lib, 'open');
    for (const next of uses.get(lib) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), lib, next].join(' > '));
      else if (!state.has(next)) visit(next, [...path, lib]);
    }
    state.set(lib, 'done');
  };
  for (const lib of uses.keys()) if (!state.has(lib)) visit(lib, []);
  return cycles;
}

const { uses, intoApps, across } = readImports();

describe('library layers (docs/ARCHITECTURE.md)', () => {
  it('reads the foundation libraries and the features above them', () => {
    expect(libraries).toEqual(expect.arrayContaining([...FOUNDATION, 'engine', 'auth']));
    expect(uses.get('engine')).toContain('problems');
  });

  it('a library never imports an app, nor another library by a relative path', () => {
    expect(intoApps).toEqual([]);
    expect(across).toEqual([]);
  });

  it('no two libraries import each other, directly or through others', () => {
    expect(cyclesOf(uses)).toEqual([]);
  });

  it.each(FOUNDATION)('libs/%s imports only the foundation libraries below it', (lib) => {
    const below = FOUNDATION.slice(0, FOUNDATION.indexOf(lib));
    expect([...(uses.get(lib) ?? [])].filter((other) => !below.includes(other))).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const looped = new Map([
      ['problems', new Set(['access'])],
      ['access', new Set(['problems'])],
    ]);
    expect(cyclesOf(looped)).toEqual(['problems > access > problems']);
  });
});
