import { spawn, spawnSync, ChildProcess, SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/**
 * A throwaway MIT Kerberos KDC (Debian krb5-kdc) for the Negotiate tests: realm TEST.LOCAL on a free port
 * of 127.0.0.1, database and config in a temp dir, the service principal HTTP/127.0.0.1 exported to a
 * keytab. Started once per Jest run by globalSetup, which puts KRB5_CONFIG and KRB5_KTNAME into the REAL
 * environment before the workers start: the GSS library reads them with getenv, and a test file's
 * process.env is only Jest's copy.
 */
export const TEST_REALM = 'TEST.LOCAL';
/** GSS host-based name of the service principal HTTP/127.0.0.1@TEST.LOCAL. */
export const TEST_SERVICE = 'HTTP@127.0.0.1';

export interface KdcServer {
  dir: string;
  port: number;
  krb5Conf: string;
  kdcConf: string;
  keytab: string;
  stop(): void;
}

/** Where the running KDC's files are, as globalSetup published them. */
export interface KdcFiles {
  dir: string;
  krb5Conf: string;
  kdcConf: string;
  keytab: string;
}

const SBIN = ['/usr/sbin', '/usr/bin', '/sbin'];

function tool(name: string): string {
  for (const d of SBIN) if (existsSync(join(d, name))) return join(d, name);
  const onPath = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  throw new Error(
    `${name} was not found. Install MIT Kerberos (Debian: apt-get install krb5-kdc krb5-admin-server krb5-user).`,
  );
}

function kdcEnv(files: KdcFiles): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    KRB5_CONFIG: files.krb5Conf,
    KRB5_KDC_PROFILE: files.kdcConf,
  };
}

function check(what: string, r: SpawnSyncReturns<string>): string {
  if (r.status !== 0 || r.error)
    throw new Error(`${what} failed (${r.status ?? r.error?.message}): ${r.stderr ?? ''}${r.stdout ?? ''}`);
  return r.stdout;
}

function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`krb5kdc exited with ${child.exitCode}`));
      const s = createConnection({ port, host: '127.0.0.1' });
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`krb5kdc did not open port ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function startKdc(): Promise<KdcServer> {
  const dir = mkdtempSync(join(tmpdir(), 'kdc-test-'));
  const port = await freePort();
  const files: KdcFiles = {
    dir,
    krb5Conf: join(dir, 'krb5.conf'),
    kdcConf: join(dir, 'kdc.conf'),
    keytab: join(dir, 'http.keytab'),
  };
  // No DNS anywhere: HTTP@127.0.0.1 must stay HTTP/127.0.0.1, not become HTTP/localhost.
  writeFileSync(
    files.krb5Conf,
    `[libdefaults]
  default_realm = ${TEST_REALM}
  dns_lookup_kdc = false
  dns_lookup_realm = false
  dns_canonicalize_hostname = false
  rdns = false
[realms]
  ${TEST_REALM} = {
    kdc = 127.0.0.1:${port}
  }
[domain_realm]
  127.0.0.1 = ${TEST_REALM}
`,
  );
  writeFileSync(
    files.kdcConf,
    `[kdcdefaults]
  kdc_listen = 127.0.0.1:${port}
  kdc_tcp_listen = 127.0.0.1:${port}
[realms]
  ${TEST_REALM} = {
    database_name = ${join(dir, 'principal')}
    key_stash_file = ${join(dir, 'stash')}
    acl_file = ${join(dir, 'kadm5.acl')}
    kdc_listen = 127.0.0.1:${port}
    kdc_tcp_listen = 127.0.0.1:${port}
  }
[logging]
  kdc = FILE:${join(dir, 'kdc.log')}
`,
  );
  const env = kdcEnv(files);
  check(
    'kdb5_util create',
    spawnSync(tool('kdb5_util'), ['create', '-s', '-P', 'test-master-password', '-r', TEST_REALM], {
      env,
      encoding: 'utf8',
    }),
  );
  kadmin(files, 'addprinc -randkey HTTP/127.0.0.1');
  kadmin(files, `ktadd -k ${files.keytab} HTTP/127.0.0.1`);
  const child = spawn(tool('krb5kdc'), ['-n', '-r', TEST_REALM], { env, stdio: 'ignore' });
  try {
    await waitForPort(port, child, 10_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    ...files,
    port,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The KDC of this run (globalSetup sets TEST_KDC_DIR). */
export function testKdc(): KdcFiles {
  const dir = process.env.TEST_KDC_DIR;
  if (!dir)
    throw new Error('TEST_KDC_DIR is not set: run the tests through jest (globalSetup starts the KDC).');
  return {
    dir,
    krb5Conf: join(dir, 'krb5.conf'),
    kdcConf: join(dir, 'kdc.conf'),
    keytab: join(dir, 'http.keytab'),
  };
}

/** Runs one kadmin.local query against the KDC database (the running KDC sees it at once). */
export function kadmin(files: KdcFiles, query: string): string {
  return check(
    `kadmin.local -q "${query}"`,
    spawnSync(tool('kadmin.local'), ['-r', TEST_REALM, '-q', query], {
      env: kdcEnv(files),
      encoding: 'utf8',
    }),
  );
}

/** Adds a user principal with a password (`name` without the realm). */
export function addPrincipal(files: KdcFiles, name: string, password: string): void {
  kadmin(files, `addprinc -pw ${password} ${name}`);
}

let caches = 0;

/**
 * Gets a ticket for `name` with kinit into a credential cache of its own (password on stdin), and returns
 * the environment a Kerberos client (the add-on, or a browser) needs to use it: KRB5_CONFIG and KRB5CCNAME.
 */
export function kinit(files: KdcFiles, name: string, password: string): NodeJS.ProcessEnv {
  const cache = `FILE:${join(files.dir, `cc-${process.pid}-${++caches}`)}`;
  const env = { ...kdcEnv(files), KRB5CCNAME: cache };
  check(
    'kinit',
    spawnSync(tool('kinit'), [`${name}@${TEST_REALM}`], { env, input: `${password}\n`, encoding: 'utf8' }),
  );
  return env;
}

/**
 * What a browser would send: gets a ticket for `name` (kinit), then builds the SPNEGO token for `service`
 * with the kerberos add-on in a child process, whose environment (KRB5_CONFIG, KRB5CCNAME) is its own.
 * Returns the base64 token.
 */
export function negotiateToken(
  files: KdcFiles,
  name: string,
  password: string,
  service = TEST_SERVICE,
): string {
  const env = kinit(files, name, password);
  const script = `
    const k = require(${JSON.stringify(require.resolve('kerberos'))});
    k.initializeClient(${JSON.stringify(service)}, { mechOID: k.GSS_MECH_OID_SPNEGO })
      .then((c) => c.step(''))
      .then((t) => process.stdout.write(t), (e) => { process.stderr.write(String(e && e.message)); process.exit(1); });`;
  return check(
    'kerberos client step',
    spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8' }),
  );
}
