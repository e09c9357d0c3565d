import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCopies, MIN_LINES } from '../scripts/duplication';

/** No block of ten lines or more repeated, outside entity and DTO declarations (scripts/duplication.ts). */
describe('copy detection', () => {
  it(`finds no block of ${MIN_LINES} lines or more in two places`, () => {
    const copies = findCopies().map(
      (c) => `${c.lines} lines: ${c.places.map((p) => `${p.file}:${p.line}`).join(', ')}`,
    );
    expect(copies).toEqual([]);
  });

  it('finds a copied block whatever its indentation, and leaves entities, DTOs and imports out', () => {
    const root = mkdtempSync(join(tmpdir(), 'copies-'));
    const block = Array.from({ length: 12 }, (_, i) => `const value${i} = compute(${i});`);
    const imports = ['import {', ...block.map((_, i) => `  name${i},`), "} from './elsewhere';"];
    mkdirSync(join(root, 'libs', 'a', 'dto'), { recursive: true });
    mkdirSync(join(root, 'apps'), { recursive: true });
    writeFileSync(join(root, 'libs', 'a', 'one.ts'), [...imports, 'first();', ...block].join('\n'));
    writeFileSync(
      join(root, 'apps', 'two.ts'),
      [...imports, 'second();', ...block.map((l) => `    ${l}`)].join('\n'),
    );
    writeFileSync(join(root, 'libs', 'a', 'dto', 'three.ts'), block.join('\n'));
    writeFileSync(join(root, 'libs', 'a', 'four.entity.ts'), block.join('\n'));
    expect(findCopies(root)).toEqual([
      {
        lines: 12,
        places: [
          { file: 'apps/two.ts', line: 16 },
          { file: 'libs/a/one.ts', line: 16 },
        ],
      },
    ]);
  });
});
