/* Profiles the service under one kind of request for N seconds; prints the top self-time functions and by package. */
import { createApiKey, load, sessionCookie, spawnRung } from '/work/main/bench/support';
import { DEMO_MODEL_GUID, demoTransaction } from '@app/engine';
import { readdirSync, readFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
(async () => {
  const kind = process.argv[2];
  const seconds = Number(process.argv[3] ?? 10);
  const dir = mkdtempSync('/tmp/prof-');
  process.env.BENCH_CPU_PROF_DIR = dir;
  const s = await spawnRung((process.env.RUNG as any) ?? 'service', { LogLevel: process.env.LL ?? 'info' });
  const key = process.env.RUNG ? '' : await createApiKey(s.url, s.token);
  const cookie = process.env.RUNG ? '' : await sessionCookie(s.url);
  const req: any =
    kind === 'root'
      ? { url: `${s.url}/` }
      : kind === 'live'
        ? { url: `${s.url}/api/Live` }
        : kind === 'bearer'
          ? { url: `${s.url}/bench/authenticated`, headers: { authorization: `Bearer ${s.token}` } }
          : kind === 'cookie'
            ? { url: `${s.url}/bench/authenticated`, headers: { cookie } }
            : kind === 'apikey'
              ? { url: `${s.url}/bench/authenticated`, headers: { 'x-api-key': key } }
              : {
                  url: `${s.url}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
                  method: 'POST',
                  headers: { 'x-api-key': key, 'content-type': 'application/json' },
                  body: JSON.stringify(demoTransaction(1)),
                };
  const r = await load({ ...req, connections: 16, duration: seconds });
  console.log(kind, 'req/s', (r['2xx'] / r.duration).toFixed(0), 'non2xx', r.non2xx);
  await s.stop();
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const self = new Map<number, number>();
  const dt = prof.timeDeltas as number[];
  prof.samples.forEach((id: number, i: number) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const n of prof.nodes) {
    const t = self.get(n.id) ?? 0;
    const cf = n.callFrame;
    const url: string = cf.url || '(native)';
    const key = `${cf.functionName || '(anon)'} ${url.replace(/.*node_modules\//, 'nm:').replace('/work/main/', '')}:${cf.lineNumber}`;
    fn.set(key, (fn.get(key) ?? 0) + t);
    const p = url.includes('node_modules/')
      ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')
      : url.startsWith('node:')
        ? 'node:' + url.slice(5).split('/')[0]
        : url.includes('/work/main/')
          ? url.replace(/.*\/work\/main\/((apps|libs)\/[^/]+).*/, '$1')
          : cf.functionName || url;
    pkg.set(p, (pkg.get(p) ?? 0) + t);
  }
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([n, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}%  ${n}`)
      .join('\n');
  console.log('--- by package\n' + top(pkg, 25));
  console.log('--- by function\n' + top(fn, 40));
})();
