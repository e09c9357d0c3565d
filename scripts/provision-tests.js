#!/usr/bin/env node
'use strict';
/**
 * `npm test` runs this first (the `pretest` script). The tests start real servers and a real browser: a
 * throwaway PostgreSQL cluster, redis-server, an MIT Kerberos KDC, Debian's Chromium. On a fresh machine of
 * this project's kind those come from Debian packages, and the optional `kerberos` add-on, which `npm ci`
 * skipped while the MIT Kerberos headers were absent, is then installed at the lockfile's version.
 *
 * - Nothing missing: prints nothing, exits 0.
 * - Missing, running as root with apt-get, NO_PROVISION unset: installs them, one line naming them.
 * - Otherwise: one line naming what is missing and the exact command, exit 1 (before Jest). Never sudo.
 *
 * Test knobs (test/provisioning.spec.ts): PROVISION_SYSROOT prefixes every absolute path this script looks
 * at, PROVISION_UID stands in for the user id. The project is the current directory (npm runs scripts at
 * the package root).
 */
const { spawnSync } = require('node:child_process');
const { accessSync, constants, existsSync, readdirSync, readFileSync } = require('node:fs');
const { delimiter, join } = require('node:path');

const sysroot = process.env.PROVISION_SYSROOT ?? '';
const uid = process.env.PROVISION_UID !== undefined ? Number(process.env.PROVISION_UID) : process.getuid?.();
const project = process.cwd();

function file(path) {
  return existsSync(sysroot + path);
}

function command(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      /* not in this directory */
    }
  }
  return false;
}

function postgresServer() {
  if (command('initdb')) return true;
  try {
    return readdirSync(`${sysroot}/usr/lib/postgresql`).some((v) =>
      file(`/usr/lib/postgresql/${v}/bin/initdb`),
    );
  } catch {
    return false;
  }
}

/** Debian package → is what the tests use from it here? (Same places the test harness looks.) */
const PACKAGES = [
  ['postgresql', postgresServer], // initdb / pg_ctl: test/support/postgres-server.ts
  ['redis-server', () => command('redis-server')],
  ['chromium', () => file('/usr/bin/chromium')], // test/support/chromium.ts
  ['libkrb5-dev', () => file('/usr/include/gssapi/gssapi_krb5.h')], // the kerberos add-on builds against it
  ['krb5-kdc', () => file('/usr/sbin/krb5kdc') || command('krb5kdc')], // test/support/kdc.ts
  ['krb5-admin-server', () => file('/usr/sbin/kadmin.local') || command('kadmin.local')],
  ['krb5-user', () => file('/usr/bin/kinit') || command('kinit')],
  // The production topology: HAProxy's own check of docker/haproxy.cfg (and bench:cluster), and
  // docker-compose parsing the compose files offline (test/production-files.spec.ts).
  ['haproxy', () => file('/usr/sbin/haproxy') || command('haproxy')],
  ['docker-compose', () => command('docker-compose')],
];

/** The version package-lock.json pins for the optional add-on. */
function lockedKerberos() {
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'));
  const entry = lock.packages?.['node_modules/kerberos'];
  if (!entry?.version) throw new Error('package-lock.json pins no version of kerberos');
  return entry.version;
}

/** Does the add-on load? (npm ci removes an optional dependency whose build failed.) */
function kerberosLoads() {
  const r = spawnSync(process.execPath, ['-e', 'require("kerberos")'], { cwd: project, stdio: 'ignore' });
  return r.status === 0;
}

/** Runs an installer quietly; its own output is shown only when it fails. */
function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { cwd: project, encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
    process.stderr.write(`provision: ${cmd} ${args.join(' ')} failed (${r.status ?? r.error?.message})\n`);
    process.exit(1);
  }
}

function main() {
  const missing = PACKAGES.filter(([, present]) => !present()).map(([name]) => name);
  const addOnMissing = !kerberosLoads();
  if (missing.length === 0 && !addOnMissing) return;

  const version = lockedKerberos();
  const apt = ['install', '-y', '-qq', '--no-install-recommends', ...missing];
  const addOn = ['install', '--no-save', '--no-audit', '--no-fund', `kerberos@${version}`];
  const canInstall = !process.env.NO_PROVISION && uid === 0 && command('apt-get');

  if (missing.length > 0 && !canInstall) {
    const why = process.env.NO_PROVISION
      ? 'NO_PROVISION is set'
      : uid !== 0
        ? 'not running as root'
        : 'apt-get is not available';
    const steps = [`apt-get update && apt-get ${apt.join(' ')}`];
    if (addOnMissing) steps.push(`npm ${addOn.join(' ')}`);
    process.stderr.write(
      `npm test needs Debian packages that are missing (${why}, so nothing was installed): ${missing.join(' ')}. ` +
        `Install them as root, then run npm test again: ${steps.join(' && ')}\n`,
    );
    process.exit(1);
  }
  if (missing.length > 0) {
    process.stdout.write(`provision: installing the Debian packages the tests need: ${missing.join(' ')}\n`);
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    // Another install in progress (a second checkout's tests, unattended upgrades): wait for its lock.
    const wait = ['-o', 'DPkg::Lock::Timeout=600'];
    run('apt-get', [...wait, 'update', '-qq'], env);
    run('apt-get', [...wait, ...apt], env);
  }
  if (addOnMissing) {
    if (process.env.NO_PROVISION) {
      process.stderr.write(
        `npm test needs the kerberos add-on, which npm ci skipped (NO_PROVISION is set, so nothing was installed). ` +
          `Install it, then run npm test again: npm ${addOn.join(' ')}\n`,
      );
      process.exit(1);
    }
    // npm ci drops an optional add-on that cannot build (before libkrb5-dev was there): bring it back.
    process.stdout.write(
      `provision: installing the kerberos add-on ${version} (package-lock.json) that npm ci skipped\n`,
    );
    run('npm', addOn);
    if (!kerberosLoads()) {
      process.stderr.write('provision: the kerberos add-on still does not load after installing it\n');
      process.exit(1);
    }
  }
}

main();
