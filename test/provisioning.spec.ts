import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const SCRIPT = join(ROOT, 'scripts/provision-tests.js');
const LOCKED = (
  JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string }>;
  }
).packages['node_modules/kerberos'].version;
const ALL = [
  'postgresql',
  'redis-server',
  'chromium',
  'libkrb5-dev',
  'krb5-kdc',
  'krb5-admin-server',
  'krb5-user',
  'haproxy',
  'docker-compose',
];

interface Machine {
  /** Project folder (cwd): a package-lock.json, node_modules without the add-on. */
  project: string;
  /** Prefix of every absolute path the script looks at: empty, as on a fresh machine. */
  sysroot: string;
  /** The only PATH: stub apt-get and npm that log their arguments. */
  bin: string;
  log: string;
}

function stub(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** A fresh machine of this kind, simulated: none of the packages, a project whose add-on npm ci dropped. */
function freshMachine(options: { aptGet?: boolean } = {}): Machine {
  const dir = mkdtempSync(join(tmpdir(), 'provision-'));
  const m = {
    project: join(dir, 'project'),
    sysroot: join(dir, 'root'),
    bin: join(dir, 'bin'),
    log: join(dir, 'calls'),
  };
  for (const d of [m.project, m.sysroot, m.bin]) mkdirSync(d);
  writeFileSync(m.log, '');
  writeFileSync(
    join(m.project, 'package-lock.json'),
    JSON.stringify({ packages: { 'node_modules/kerberos': { version: LOCKED } } }),
  );
  if (options.aptGet !== false)
    stub(join(m.bin, 'apt-get'), `echo "apt-get DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*" >> ${m.log}`);
  // npm install puts a loadable add-on in place, as the real one does.
  stub(
    join(m.bin, 'npm'),
    `echo "npm $*" >> ${m.log}\n/bin/mkdir -p node_modules/kerberos && echo 'module.exports = {}' > node_modules/kerberos/index.js`,
  );
  return m;
}

function provision(m: Machine, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [SCRIPT], {
    cwd: m.project,
    encoding: 'utf8',
    env: { PATH: m.bin, PROVISION_SYSROOT: m.sysroot, PROVISION_UID: '0', ...env },
  });
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    calls: readFileSync(m.log, 'utf8').trim().split('\n').filter(Boolean),
  };
}

/** Puts what a package provides where the script (and the test harness) look for it. */
function install(m: Machine, what: 'everything' | 'packages'): void {
  for (const f of [
    '/usr/bin/chromium',
    '/usr/include/gssapi/gssapi_krb5.h',
    '/usr/sbin/krb5kdc',
    '/usr/sbin/kadmin.local',
    '/usr/bin/kinit',
  ]) {
    mkdirSync(join(m.sysroot, f, '..'), { recursive: true });
    writeFileSync(join(m.sysroot, f), '');
  }
  for (const c of ['initdb', 'redis-server', 'haproxy', 'docker-compose']) stub(join(m.bin, c), 'exit 0');
  if (what === 'everything') {
    mkdirSync(join(m.project, 'node_modules/kerberos'), { recursive: true });
    writeFileSync(join(m.project, 'node_modules/kerberos/index.js'), 'module.exports = {}');
  }
}

describe('npm test provisioning (scripts/provision-tests.js, the pretest step)', () => {
  it('as root with apt-get: installs exactly the missing packages, non-interactively, then the add-on at the locked version', () => {
    const m = freshMachine();
    const r = provision(m);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      'apt-get DEBIAN_FRONTEND=noninteractive -o DPkg::Lock::Timeout=600 update -qq',
      `apt-get DEBIAN_FRONTEND=noninteractive -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends ${ALL.join(' ')}`,
      `npm install --no-save --no-audit --no-fund kerberos@${LOCKED}`,
    ]);
    expect(r.stdout).toBe(
      `provision: installing the Debian packages the tests need: ${ALL.join(' ')}\n` +
        `provision: installing the kerberos add-on ${LOCKED} (package-lock.json) that npm ci skipped\n`,
    );
    expect(existsSync(join(m.project, 'node_modules/kerberos/index.js'))).toBe(true);
  });

  it('installs only what is missing', () => {
    const m = freshMachine();
    install(m, 'packages');
    const r = provision(m);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([`npm install --no-save --no-audit --no-fund kerberos@${LOCKED}`]);
  });

  it('with everything present prints nothing and runs nothing', () => {
    const m = freshMachine();
    install(m, 'everything');
    const r = provision(m);
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '', calls: [] });
  });

  it.each([
    ['not root', { PROVISION_UID: '1000' }, true, 'not running as root'],
    ['NO_PROVISION set', { NO_PROVISION: '1' }, true, 'NO_PROVISION is set'],
    ['no apt-get', {}, false, 'apt-get is not available'],
  ])(
    '%s: stops before Jest with one line naming what is missing and the exact command, installs nothing',
    (_, env, aptGet, why) => {
      const m = freshMachine({ aptGet });
      const r = provision(m, env);
      expect(r.status).toBe(1);
      expect(r.calls).toEqual([]);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(why);
      expect(lines[0]).toContain(`: ${ALL.join(' ')}.`);
      expect(lines[0]).toContain(
        `apt-get update && apt-get install -y -qq --no-install-recommends ${ALL.join(' ')} && npm install --no-save --no-audit --no-fund kerberos@${LOCKED}`,
      );
      expect(lines[0]).not.toContain('sudo');
    },
  );

  it('NO_PROVISION with only the add-on missing: names the npm command, installs nothing', () => {
    const m = freshMachine();
    install(m, 'packages');
    const r = provision(m, { NO_PROVISION: '1' });
    expect(r.status).toBe(1);
    expect(r.calls).toEqual([]);
    expect(r.stderr.trim()).toMatch(
      new RegExp(
        `kerberos add-on.*npm install --no-save --no-audit --no-fund kerberos@${LOCKED.replace(/\./g, '\\.')}$`,
      ),
    );
  });

  it('a failing apt-get stops with its output and a non-zero exit', () => {
    const m = freshMachine();
    stub(join(m.bin, 'apt-get'), 'echo "E: Unable to locate package" >&2; exit 100');
    const r = provision(m);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('E: Unable to locate package');
    expect(r.stderr).toContain('provision: apt-get -o DPkg::Lock::Timeout=600 update -qq failed (100)');
  });
});
