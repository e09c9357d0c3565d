import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EMBEDDED_SECRETS_FILE } from '@app/config';
import { createSqliteDirectory } from './support/databases';
import { freePort } from './support/free-port';
import { spawnServer, waitFor } from './support/spawn-server';

/** The real entry point, as `npm start` runs it, in a child process. */
describe('start-up', () => {
  it.each([
    ['PasswordAttempts', 'abc'],
    ['SessionAbsoluteLifetimeInterval', 'x'],
    ['DatabaseProvider', 'oracle'],
    ['SessionCookie', 'yes'],
    ['Port', '70000'],
  ])('refuses %s=%s with exit code 1 and one line naming the setting', async (name, value) => {
    const server = spawnServer({ [name]: value, DataDirectory: createSqliteDirectory() });
    expect(await server.exited).toBe(1);
    const lines = server.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
    expect(lines[0]).toMatch(/allowed/);
  });

  it('refuses PasswordAsymmetricEncryption=True without its keys, naming the missing key', async () => {
    const server = spawnServer({
      PasswordAsymmetricEncryption: 'TRUE',
      DataDirectory: createSqliteDirectory(),
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('PasswordAsymmetricEncryptionPublicKey');
  });

  it('never echoes a secret value in the error line', async () => {
    const secret = 'postgres://user:SuperSecret123@127.0.0.1:1/x';
    const server = spawnServer({
      DatabaseProvider: 'postgres',
      ConnectionString: secret,
      DataDirectory: createSqliteDirectory(),
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('JwtKey');
    expect(server.output()).not.toContain('SuperSecret123');
  });

  it('starts on embedded SQLite with no settings, prints the URL and the one-time password once, keeps generated secrets at 0600, and stops on SIGTERM', async () => {
    const dir = createSqliteDirectory();
    const port = await freePort();
    const first = spawnServer({ DataDirectory: dir, Port: String(port) });
    await waitFor(() => first.output().includes('Service listening'), 30_000, 'the service to listen');
    const res = await fetch(`http://127.0.0.1:${port}/api/Ready`);
    expect(res.status).toBe(200);
    expect(first.output()).toContain(`http://localhost:${port}`);
    const password = /one-time password: (\S+)/.exec(first.output())?.[1];
    expect(password).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(first.output()).toMatch(/JwtKey and ApiHmacKey were generated .* production must set them/);
    const secretsFile = join(dir, EMBEDDED_SECRETS_FILE);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const secrets = readFileSync(secretsFile, 'utf8');
    // The generated secrets never reach the console.
    for (const v of Object.values(JSON.parse(secrets) as Record<string, string>))
      expect(first.output()).not.toContain(v);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    // Second start: same secrets, no new password printed (the database is not empty).
    const second = spawnServer({ DataDirectory: dir, Port: String(port) });
    await waitFor(() => second.output().includes('Service listening'), 30_000, 'the second start');
    expect(second.output()).not.toContain('one-time password');
    expect(readFileSync(secretsFile, 'utf8')).toBe(secrets);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('keeps the SQLite database, WAL and SHM files at 0600 under umask 077, also when SQLite recreates them, and warns about an open DataDirectory', async () => {
    const dir = createSqliteDirectory();
    chmodSync(dir, 0o755);
    const port = await freePort();
    const files = ['service.sqlite', 'service.sqlite-wal', 'service.sqlite-shm'].map((f) => join(dir, f));
    const modes = () =>
      files.map((f) => [f, existsSync(f) ? (statSync(f).mode & 0o777).toString(8) : 'absent']);
    const start = async () => {
      const server = spawnServer({ DataDirectory: dir, Port: String(port) });
      await waitFor(() => server.output().includes('Service listening'), 30_000, 'the service to listen');
      // A write, so the WAL holds something.
      await fetch(`http://127.0.0.1:${port}/api/Authentication/ByUserNamePassword`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'nobody', password: 'nothing-here' }),
      });
      expect(modes()).toEqual(files.map((f) => [f, '600']));
      const umask = /^Umask:\s*(\d+)/m.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1];
      expect(umask).toBe('0077');
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      return server.output();
    };
    const first = await start();
    expect(first).toMatch(/DataDirectory .* is open to every user \(mode 755\).*chmod 700/);
    // SQLite removes the WAL and SHM at a clean close and creates them again at the next start.
    expect(existsSync(files[1])).toBe(false);
    chmodSync(dir, 0o700);
    const second = await start();
    expect(second).not.toContain('is open to');
  });

  it('at a terminal writes readable log lines (pino-pretty), the banner unchanged; piped, JSON lines', async () => {
    for (const terminal of [true, false]) {
      const port = await freePort();
      const server = spawnServer(
        { DataDirectory: createSqliteDirectory(), Port: String(port) },
        { terminal },
      );
      try {
        await waitFor(() => server.output().includes('Service listening'), 30_000, 'the service to listen');
        await waitFor(
          () => server.output().includes('JwtKey and ApiHmacKey were generated'),
          5000,
          'the WARN line',
        );
        // Colours, when the terminal has them, are not part of what is asserted.
        // eslint-disable-next-line no-control-regex
        const out = server.output().replace(/\u001b\[[0-9;]*m/g, '');
        expect(out).toContain(`Service listening on http://localhost:${port}`);
        expect(out).toMatch(/one-time password: \S+/);
        const warning = out.split(/\r?\n/).find((l) => l.includes('JwtKey and ApiHmacKey were generated'));
        if (terminal) {
          expect(warning).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: JwtKey and ApiHmacKey were generated/);
          expect(out).not.toMatch(/^\{"level"/m);
        } else {
          expect(JSON.parse(warning ?? '')).toMatchObject({ level: 40 });
        }
      } finally {
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
      }
    }
  });

  it('with EnableMultifactorAuthentication and no endpoint: WARNs at start, and the bundled mock on its own address completes a sign-in', async () => {
    const port = await freePort();
    const server = spawnServer({
      DataDirectory: createSqliteDirectory(),
      Port: String(port),
      EnableMultifactorAuthentication: 'True',
      BootstrapAdministratorPassword: 'Bootstrap-Password-For-Mfa-1',
    });
    try {
      await waitFor(() => server.output().includes('Service listening'), 30_000, 'the service to listen');
      // pino writes to stdout asynchronously: the line may follow the banner.
      const warning = /"level":40[^\n]*bundled mock \(\/api\/mfa\)[^\n]*one fixed passcode/;
      await waitFor(() => warning.test(server.output()), 5000, 'the WARN about the bundled mock');
      const post = (path: string, body: object) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      // The bootstrap password is expired: the change is proven, then waits for the passcode.
      const step = await post('/api/Authentication/ByUserNamePassword', {
        userName: 'Administrator',
        password: 'Bootstrap-Password-For-Mfa-1',
        newPassword: 'A-Long-New-Password-1',
        repeatNewPassword: 'A-Long-New-Password-1',
      });
      expect(step.status).toBe(202);
      const { passcodeToken } = (await step.json()) as { passcodeToken: string };
      const done = await post('/api/Authentication/Passcode', { passcodeToken, passcode: '000000' });
      expect(done.status).toBe(200);
      const { token } = (await done.json()) as { token: string };
      const session = await fetch(`http://127.0.0.1:${port}/api/Authentication/Session`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(session.status).toBe(200);
      expect(server.output()).not.toContain('ShippedDefaultClientKey');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
