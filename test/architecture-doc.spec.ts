import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');
const doc = readFileSync(join(root, 'docs', 'ARCHITECTURE.md'), 'utf8');
const libraries = readdirSync(join(root, 'libs'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
/** The libraries the module map names: a line of the map starts with the library's folder. */
const mapped = [...doc.matchAll(/^libs\/([\w-]+)\s/gm)].map((m) => m[1]).sort();

describe('docs/ARCHITECTURE.md draws the libraries that exist', () => {
  it('finds the libraries under libs/', () => {
    expect(libraries).toEqual(expect.arrayContaining(['engine', 'telemetry', 'declarations']));
  });

  it.each(libraries)('its module map has a line for libs/%s', (name) => {
    expect(mapped).toContain(name);
  });

  it('names no library that is gone, and each one once', () => {
    expect(mapped).toEqual(libraries);
  });
});
