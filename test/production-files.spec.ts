import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_DEFINITIONS, SettingDefinition } from '@app/config';
import { OVERWRITE_FORWARDED_RULES } from './support/haproxy';

const DOCKER = join(__dirname, '..', 'docker');
const COMPOSE_FILES = ['compose.postgres.yml', 'compose.mssql.yml'];
/** Services that run this service's image: their environment is this service's settings. */
const OUR_SERVICES = ['migrate', 'node-a', 'node-b'];
const SECRETS = { POSTGRES_PASSWORD: 'p', MSSQL_SA_PASSWORD: 'p', JWT_KEY: 'j', API_HMAC_KEY: 'a' };

/**
 * The production files cannot run here (no container engine, no images), so they are checked offline:
 * Debian's docker-compose parses each compose file, every setting they give the service exists, HAProxy
 * accepts its configuration, and the image's health check asks /api/Live.
 */
describe('docker/: the production topology, checked offline', () => {
  const known = new Set(
    (SETTING_DEFINITIONS as readonly SettingDefinition[]).flatMap((d) => [d.name, ...(d.aliases ?? [])]),
  );

  it.each(COMPOSE_FILES)('%s parses, and every setting it gives the service exists', (file) => {
    const config = spawnSync('docker-compose', ['-f', join(DOCKER, file), 'config'], {
      encoding: 'utf8',
      env: { ...process.env, ...SECRETS },
    });
    expect(config.stderr).toBe('');
    expect(config.status).toBe(0);
    // The resolved file, as docker-compose prints it: `environment:` maps of two-space-indented services.
    const services = new Map<string, string[]>();
    let service = '';
    let inEnvironment = false;
    for (const line of config.stdout.split('\n')) {
      const s = /^ {2}([a-z0-9-]+):$/.exec(line);
      if (s) {
        service = s[1];
        services.set(service, []);
        inEnvironment = false;
        continue;
      }
      if (/^ {4}environment:$/.test(line)) {
        inEnvironment = true;
        continue;
      }
      const v = /^ {6}([A-Za-z_][A-Za-z0-9_]*):/.exec(line);
      if (inEnvironment && v) services.get(service)?.push(v[1]);
      else if (!/^ {6}/.test(line)) inEnvironment = false;
    }
    for (const name of OUR_SERVICES) {
      const names = services.get(name) ?? [];
      expect(names).toEqual(
        expect.arrayContaining(['DatabaseProvider', 'ConnectionString', 'JwtKey', 'ApiHmacKey']),
      );
      expect(names.filter((n) => !known.has(n))).toEqual([]);
    }
    // Two nodes, distinct names, behind the balancer, never migrating themselves.
    expect(config.stdout.match(/InstanceName: node-[ab]/g)).toEqual([
      'InstanceName: node-a',
      'InstanceName: node-b',
    ]);
    expect(config.stdout).toContain('condition: service_completed_successfully');
  });

  it('HAProxy accepts docker/haproxy.cfg: health check on /api/Ready, retries on connection failures only', () => {
    const check = spawnSync('haproxy', ['-c', '-f', join(DOCKER, 'haproxy.cfg')], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toContain('Configuration file is valid');
    expect(check.status).toBe(0);
    const cfg = readFileSync(join(DOCKER, 'haproxy.cfg'), 'utf8');
    expect(cfg).toMatch(/http-check send meth GET uri \/api\/Ready/);
    expect(cfg).toMatch(/^\s*retry-on conn-failure\s*$/m);
    // The client's address, scheme and host are overwritten, never appended to what the
    // client sent (the same rules as the balancer the tests and bench:cluster run).
    expect(cfg).not.toMatch(/^\s*option forwardfor/m);
    for (const rule of OVERWRITE_FORWARDED_RULES) expect(cfg).toContain(rule);
    expect(cfg).toMatch(/^\s*http-request set-header X-Forwarded-Proto https if \{ ssl_fc \}$/m);
    expect(cfg).toMatch(/^\s*http-request set-header X-Forwarded-Proto http if !\{ ssl_fc \}$/m);
  });

  it('the image checks its health on /api/Live with node (no curl in the slim image)', () => {
    const dockerfile = readFileSync(join(DOCKER, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n?.*"node", "-e", "fetch\(.*\/api\/Live/m);
  });

  it('the image runs node with the V8 flags npm start gives it (docs/production.md, Memory)', () => {
    const start = (
      JSON.parse(readFileSync(join(DOCKER, '..', 'package.json'), 'utf8')) as {
        scripts: { start: string };
      }
    ).scripts.start;
    const flags = start.split(/\s+/).filter((word) => word.startsWith('--'));
    const cap = flags.find((f) => f.startsWith('--max-old-space-size='));
    expect(Number(cap?.split('=')[1])).toBeGreaterThanOrEqual(512);
    expect(flags).toEqual(
      expect.arrayContaining([
        '--no-allocation-site-pretenuring',
        '--no-flush-bytecode',
        '--concurrent-marking-max-worker-num=1',
      ]),
    );
    const dockerfile = readFileSync(join(DOCKER, 'Dockerfile'), 'utf8');
    // the heap cap through NODE_OPTIONS (docker run -e changes it); the others, which NODE_OPTIONS refuses, in CMD
    expect(dockerfile).toMatch(new RegExp(`^ENV NODE_OPTIONS=${cap}$`, 'm'));
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    const args = JSON.parse(cmd ?? '[]') as string[];
    expect(args[0]).toBe('node');
    expect(args.at(-1)).toBe('dist/apps/server/src/main.js');
    expect(new Set([...args.filter((a) => a.startsWith('--')), cap])).toEqual(new Set(flags));
  });
});
