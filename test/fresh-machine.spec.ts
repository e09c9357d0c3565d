import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/free-port';
import { waitFor } from './support/spawn-server';

const ROOT = join(__dirname, '..');
const SOURCES = [
  'apps',
  'libs',
  'test',
  'bench',
  'scripts',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
  'package.json',
];

/**
 * A machine without MIT Kerberos headers: `npm ci` drops the optional `kerberos` add-on there. Simulated
 * without touching the shared node_modules (other test files use the add-on meanwhile): a temp tree with a
 * copy of the sources and every node_modules entry linked one by one, except `kerberos`. The sources are
 * copied, not linked, so that module resolution starts in the temp tree and cannot find the real add-on.
 */
describe('a machine where npm ci skipped the optional kerberos add-on', () => {
  let tree: string;

  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'no-kerberos-'));
    for (const s of SOURCES) cpSync(join(ROOT, s), join(tree, s), { recursive: true });
    mkdirSync(join(tree, 'node_modules'));
    for (const entry of readdirSync(join(ROOT, 'node_modules')))
      if (entry !== 'kerberos')
        symlinkSync(join(ROOT, 'node_modules', entry), join(tree, 'node_modules', entry));
  });

  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  const node = (args: string[]) => spawnSync(process.execPath, args, { cwd: tree, encoding: 'utf8' });

  it('type-checks (test/ included) and builds', () => {
    expect(spawnSync(process.execPath, ['-e', 'require.resolve("kerberos")'], { cwd: tree }).status).not.toBe(
      0,
    );
    const check = node([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit']);
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
    const build = node([join(ROOT, 'node_modules/@nestjs/cli/bin/nest.js'), 'build']);
    expect(build.stdout + build.stderr).not.toMatch(/error/i);
    expect(build.status).toBe(0);
  });

  /** The built entry point, as `npm start` runs it. */
  function start(env: Record<string, string>) {
    let out = '';
    const child = spawn(process.execPath, [join(tree, 'dist/apps/server/src/main.js')], {
      cwd: tree,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DataDirectory: mkdtempSync(join(tree, 'data-')),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { child, exited, output: () => out };
  }

  it('starts to /api/Ready with Negotiate off', async () => {
    const port = await freePort();
    const server = start({ Port: String(port) });
    try {
      await waitFor(() => server.output().includes('Service listening'), 60_000, 'the service to listen');
      expect((await fetch(`http://127.0.0.1:${port}/api/Ready`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  it('refuses NegotiateAuthentication=True with exit code 1, naming the add-on and libkrb5-dev', async () => {
    // A keytab is there: what is missing is only the add-on.
    const keytab = join(tree, 'http.keytab');
    writeFileSync(keytab, '');
    const server = start({
      Port: String(await freePort()),
      NegotiateAuthentication: 'True',
      NegotiateKeytab: keytab,
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/NegotiateAuthentication=True needs the kerberos add-on/);
    expect(server.output()).toContain('libkrb5-dev');
    expect(server.output()).not.toContain('Service listening');
  });
});
