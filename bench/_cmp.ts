import { load, spawnRung } from './support';
(async () => {
  const s = await spawnRung('service', { LogLevel: 'info' });
  const paths = (process.argv[2] ?? '/api/Live,/bench/anonymous').split(',');
  for (let r = 0; r < 3; r++)
    for (const p of paths) {
      const res = await load({
        url: s.url + p,
        connections: 16,
        duration: 3,
        headers: p.includes('authenticated') ? { authorization: `Bearer ${s.token}` } : {},
      });
      console.log(
        p.padEnd(24),
        (res['2xx'] / res.duration).toFixed(0),
        'non2xx',
        res.non2xx,
        'p99',
        res.latency.p99,
      );
    }
  await s.stop();
})();
