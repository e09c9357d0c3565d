/* The README's settings table, generated from SETTING_DEFINITIONS. `npm run docs:settings` rewrites it in
 * README.md; test/readme.spec.ts fails when the two differ. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_DEFINITIONS, SettingDefinition } from '../libs/config/src/settings';

export const START = '<!-- settings:start -->';
export const END = '<!-- settings:end -->';

export function settingsTable(): string {
  const rows = (SETTING_DEFINITIONS as readonly SettingDefinition[]).map((d) => {
    const def =
      d.name === 'InstanceName'
        ? 'host name'
        : d.default === undefined
          ? '(unset)'
          : typeof d.default === 'boolean'
            ? d.default
              ? 'True'
              : 'False'
            : String(d.default);
    return `| \`${d.name}\` | ${def} | ${d.description}${d.secret ? ' **Secret.**' : ''} |`;
  });
  return ['| Setting | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

if (require.main === module) {
  const file = join(__dirname, '..', 'README.md');
  const readme = readFileSync(file, 'utf8');
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error('README.md has no settings markers');
  writeFileSync(file, `${readme.slice(0, a + START.length)}\n${settingsTable()}\n${readme.slice(b)}`);
  process.stdout.write('README.md settings table updated\n');
}
