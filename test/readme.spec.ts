import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { END, settingsTable, START } from '../scripts/settings-table';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('has exactly the two set-up commands', () => {
    const commands = [...readme.matchAll(/```sh\n([^`]+)```/g)].map((m) => m[1].trim());
    expect(commands).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });

  it('settings table is the one the code defines (npm run docs:settings)', () => {
    const table = readme.slice(readme.indexOf(START) + START.length, readme.indexOf(END)).trim();
    expect(table).toBe(settingsTable());
  });

  it('.ci/run runs exactly the README test command', () => {
    const ci = readFileSync(join(__dirname, '..', '.ci', 'run'), 'utf8');
    expect(ci.trim().split('\n').pop()).toBe('npm ci && npm test');
  });
});
