import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import UNIT_TESTS from './unit-tests.json';

const ROOT = join(__dirname, '..');

/** What a test that needs a server, a database, another process or a browser uses. */
const NEEDS_MORE =
  /startTestApp|support\/databases|support\/spawn-server|child_process|\.listen\(|createServer|new DataSource|ioredis|supertest|playwright|chromium|createTestingModule/;

describe('npm run test:unit (test/unit-tests.json)', () => {
  it.each(UNIT_TESTS.filter((path) => path !== 'test/unit-tests.spec.ts'))('%s exists and starts nothing', (path) => {
    const file = join(ROOT, path);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toMatch(NEEDS_MORE);
  });
});
