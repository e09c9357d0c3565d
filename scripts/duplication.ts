/*
 * Copy detection (issue 41): blocks of MIN_LINES or more lines that appear twice or more in the project's
 * TypeScript (apps, libs, bench, scripts, test), compared line by line with indentation and blank lines
 * ignored. Entity and DTO declarations (their shape follows the tables and the API), migrations (never edited
 * once run) and generated files are left out. test/duplication.spec.ts fails on any block found; run this file
 * (`node -r ./scripts/ts-register.js scripts/duplication.ts`) to list them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const MIN_LINES = Number(process.env.MIN_LINES ?? 10);
const ROOT = join(__dirname, '..');
const FOLDERS = ['apps', 'libs', 'bench', 'scripts', 'test'];
const LEFT_OUT = [
  /(^|\/)node_modules\//,
  /(^|\/)dist\//,
  /\.entity\.ts$/,
  /(^|\/)entities(\.ts|\/)/,
  /\.dto\.ts$/,
  /(^|\/)dto(s)?\//,
  /\/migrations\//,
  /\.gen\.ts$/,
];
/** Lines that say nothing alone: closing brackets, a lone keyword, an import's parts. */
const TRIVIAL = /^([)\]}]+[;,)]*|\);?|\]\)?;?|else|try \{|} catch \{|\/\/.*|\*\/|\/\*\*|\*.*)$/;

export interface Copy {
  lines: number;
  places: { file: string; line: number }[];
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : files(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

interface Line {
  text: string;
  number: number;
}

/**
 * A file's lines that count: trimmed, blank and trivial ones dropped, and import statements (two files that
 * need the same things say so alike), each with its line number.
 */
function significantLines(text: string): Line[] {
  let inImport = false;
  return text
    .split('\n')
    .map((raw, i) => ({ text: raw.trim(), number: i + 1 }))
    .filter((l) => {
      if (l.text.startsWith('import ')) inImport = !/from '[^']+';$|^import '[^']+';$/.test(l.text);
      else if (inImport) inImport = !/from '[^']+';$/.test(l.text);
      else return l.text !== '' && !TRIVIAL.test(l.text);
      return false;
    });
}

/** Every block of at least MIN_LINES significant lines found in two places or more. */
export function findCopies(root = ROOT): Copy[] {
  const sources = FOLDERS.filter((f) => existsSync(join(root, f)))
    .flatMap((f) => files(join(root, f)))
    .map((path) => relative(root, path))
    .filter((path) => !LEFT_OUT.some((re) => re.test(path)))
    .map((file) => ({ file, lines: significantLines(readFileSync(join(root, file), 'utf8')) }));
  const seen = new Map<string, { file: number; at: number }[]>();
  sources.forEach((source, file) => {
    for (let at = 0; at + MIN_LINES <= source.lines.length; at++) {
      const key = source.lines
        .slice(at, at + MIN_LINES)
        .map((l) => l.text)
        .join('\n');
      const places = seen.get(key) ?? [];
      places.push({ file, at });
      seen.set(key, places);
    }
  });
  // windows that repeat, merged into blocks: a window that continues the block of the one before is skipped
  const copies: Copy[] = [];
  const covered = new Set<string>();
  for (const places of seen.values()) {
    if (places.length < 2) continue;
    const [first] = places;
    const id = `${first.file}:${first.at}`;
    if (covered.has(id)) continue;
    let length = MIN_LINES;
    for (;;) {
      const next = places.map((p) => sources[p.file].lines[p.at + length]?.text);
      if (next[0] === undefined || next.some((t) => t !== next[0])) break;
      length++;
    }
    for (let k = 0; k <= length - MIN_LINES; k++)
      for (const p of places) covered.add(`${p.file}:${p.at + k}`);
    copies.push({
      lines: length,
      places: places.map((p) => ({ file: sources[p.file].file, line: sources[p.file].lines[p.at].number })),
    });
  }
  return copies.sort((a, b) => b.lines - a.lines);
}

if (require.main === module) {
  const copies = findCopies();
  for (const c of copies)
    process.stdout.write(`${c.lines} lines: ${c.places.map((p) => `${p.file}:${p.line}`).join(', ')}\n`);
  process.stdout.write(`${copies.length} repeated blocks of ${MIN_LINES} lines or more\n`);
}
