import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REQUEST_LINE_BATCH } from './line-batcher';

describe('lineBatcher', () => {
  const root = join(__dirname, '..', '..', '..', '..');
  /** A child that hands `count` lines to a batcher (`batch`) over the service's own destination, then `ending`. */
  const child = (count: number, batch: number, ending: string): [string, string[]] => [
    process.execPath,
    [
      '-r',
      join(root, 'scripts', 'ts-register.js'),
      '-e',
      `const { lineBatcher } = require('./apps/server/src/fast-paths/line-batcher');
       const { stdoutDestination } = require('./apps/server/src/request-logging.middleware');
       const write = lineBatcher(stdoutDestination(), ${batch});
       for (let i = 0; i < ${count}; i++) write('{"line":' + i + '}\\n');
       ${ending}`,
    ],
  ];
  const lines = (count: number) => Array.from({ length: count }, (_, i) => `{"line":${i}}`);

  describe.each([
    ['a loop turn', 0],
    ['REQUEST_LINE_BATCH characters', REQUEST_LINE_BATCH],
  ])('batching %s', (_batching, batch) => {
    it.each([
      ['an exit in the same turn', 'process.exit(0)'],
      ['an uncaught error in the same turn', "throw new Error('boom')"],
      ['the turn ending', ''],
    ])('writes every line out, in order, after %s', (_what, ending) => {
      // 2 000 lines are about 28 000 characters: more than one batch, and a rest
      const [command, args] = child(2000, batch, ending);
      const { stdout } = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
      expect(stdout.split('\n').filter(Boolean)).toEqual(lines(2000));
    });
  });

  it('writes the lines of a quiet process while it keeps running, not only when it ends', async () => {
    // 3 lines, far below a batch; the process then stays up for 20 s unless killed
    const [command, args] = child(3, REQUEST_LINE_BATCH, 'setTimeout(() => undefined, 20_000)');
    const process = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const seen = await new Promise<boolean>((resolve) => {
      process.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.split('\n').filter(Boolean).length === 3) resolve(process.exitCode === null);
      });
      process.once('exit', () => resolve(false));
    });
    process.kill();
    expect(seen).toBe(true);
    expect(out.split('\n').filter(Boolean)).toEqual(lines(3));
  });
});
