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

  it('.ci/run runs exactly the README test command, and installs nothing itself', () => {
    const ci = readFileSync(join(__dirname, '..', '.ci', 'run'), 'utf8');
    const commands = ci
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#') && l !== 'set -euo pipefail' && !l.startsWith('cd '));
    expect(commands).toEqual(['npm ci && npm test']);
  });

  it('npm test provisions first (pretest), and the README says what it installs', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
    expect(pkg.scripts.pretest).toBe('node scripts/provision-tests.js');
    expect(readme).toContain('NO_PROVISION=1');
  });
});
