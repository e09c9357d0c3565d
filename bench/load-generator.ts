/* The load generator's own process: `load()` (bench/support.ts) sends it autocannon options over IPC and
 * receives the result. So no bench measures a server that shares its JavaScript thread with autocannon
 * (which would understate capacity and compress every ratio by a constant load-generator cost). */
import autocannon from 'autocannon';

process.once('message', (options: autocannon.Options) => {
  autocannon(options, (err: unknown, result: autocannon.Result) => {
    process.send?.(
      err ? { error: err instanceof Error ? err.message : 'autocannon failed' } : { result },
      () => process.exit(0),
    );
  });
});
