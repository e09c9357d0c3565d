import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { offlineOpenApiDocument } from '../../scripts/console';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';

/** The operations the console calls, by path and method, with the operationIds clients depend on. */
const CONSOLE_OPERATIONS = {
  'GET /api/Authentication/Options': 'getSignInOptions',
  'POST /api/Authentication/ByUserNamePassword': 'signInByUserNamePassword',
  'POST /api/Authentication/Passcode': 'signInByPasscode',
  'GET /api/Authentication/ByNegotiate': 'signInByNegotiate',
  'POST /api/Authentication/WirePasswordHash': 'getWirePasswordHash',
  'GET /api/Authentication/PasswordPublicKey': 'getPasswordPublicKey',
  'GET /api/Authentication/Session': 'getSession',
  'POST /api/Authentication/ChangePassword': 'changePassword',
  'POST /api/Authentication/Logout': 'logout',
};

type Document = { paths: Record<string, Record<string, { operationId?: string }>> };

/**
 * The console's typed client is generated at build time from the document built OFFLINE (scripts/console.ts:
 * Nest's preview mode, no database, no port). This proves that document is the one the service serves.
 */
describe('the OpenAPI document the console is typed from', () => {
  let t: TestApp;
  let served: Document;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    served = (await request(t.url).get('/swagger/json').set('Cookie', s.cookie).expect(200)).body as Document;
  });
  afterAll(() => t.close());

  it('built offline, is exactly the served document', async () => {
    expect(await offlineOpenApiDocument()).toEqual(served);
  });

  it('names the console operations with stable operationIds', () => {
    const ids = Object.fromEntries(
      Object.keys(CONSOLE_OPERATIONS).map((key) => {
        const [method, path] = key.split(' ');
        return [key, served.paths[path]?.[method.toLowerCase()]?.operationId];
      }),
    );
    expect(ids).toEqual(CONSOLE_OPERATIONS);
  });

  it('the generated client types (npm run typecheck / build) are those of the served document', () => {
    const root = join(__dirname, '..', '..');
    const generated = join(root, 'apps', 'console', 'src', 'api', 'schema.gen.ts');
    expect(existsSync(generated)).toBe(true);
    // openapi-typescript is ESM with ESM dependencies: it runs in a plain Node child, as in the build.
    const dir = mkdtempSync(join(tmpdir(), 'openapi-served-'));
    try {
      writeFileSync(join(dir, 'served.json'), JSON.stringify(served));
      const r = spawnSync(
        process.execPath,
        [
          '-r',
          join(root, 'scripts/ts-register.js'),
          join(root, 'scripts/console.ts'),
          'types',
          join(dir, 'served.json'),
        ],
        { cwd: root, encoding: 'utf8' },
      );
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(readFileSync(generated, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
