import pino from 'pino';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { requestLineText } from './request-logging.middleware';

/** What pino itself writes for a request line with these bindings, at a fixed time. */
function pinoLine(
  base: Record<string, unknown>,
  level: 'info' | 'warn' | 'error',
  line: Parameters<typeof requestLineText>[3],
  message: string,
): string {
  let written = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  const logger = pino({ level: 'info', base, timestamp: () => ',"time":1764000000123' }, sink);
  logger[level](
    {
      req: { id: line.id, method: line.method, url: line.url },
      res: { statusCode: line.statusCode },
      responseTime: line.responseTime,
    },
    message,
  );
  return written;
}

describe('requestLineText', () => {
  const base = { pid: 4242, hostname: 'ops-host "a"', instance: 'node\\1' };
  const bindings = `,${JSON.stringify(base).slice(1, -1)}`;

  it.each([
    [
      'info',
      30,
      'request completed',
      { id: 'live-1', method: 'GET', url: '/api/Live', statusCode: 200, responseTime: 0 },
    ],
    [
      'warn',
      40,
      'request aborted',
      { id: 'a"b\\c', method: 'POST', url: '/api/Invoke/x/"q"\u2028', statusCode: 200, responseTime: 1234 },
    ],
    [
      'error',
      50,
      'request failed',
      { id: '0b5e-ü', method: 'DELETE', url: '/é/%20/\u0001', statusCode: 503, responseTime: 7 },
    ],
  ] as const)('writes %s lines byte for byte as pino does', (level, number, message, line) => {
    expect(requestLineText(bindings, number, 1764000000123, line, message)).toBe(
      pinoLine(base, level, line, message),
    );
  });
});

describe('lineBatcher', () => {
  const root = join(__dirname, '..', '..', '..');
  /** A process that hands `count` lines to a batcher over pino's asynchronous destination, then `ending`. */
  const run = (count: number, ending: string) =>
    spawnSync(
      process.execPath,
      [
        '-r',
        join(root, 'scripts', 'ts-register.js'),
        '-e',
        `const pino = require('pino');
         const { lineBatcher } = require('./apps/server/src/request-logging.middleware');
         const write = lineBatcher(pino.destination({ dest: 1, sync: false, minLength: 4096 }));
         for (let i = 0; i < ${count}; i++) write('{"line":' + i + '}\\n');
         ${ending}`,
      ],
      { cwd: root, encoding: 'utf8' },
    );

  it.each([
    ['an exit in the same turn', 'process.exit(0)'],
    ['an uncaught error in the same turn', "throw new Error('boom')"],
    ['the turn ending', ''],
  ])('writes every line out, in order, after %s', (_what, ending) => {
    const { stdout } = run(50, ending);
    expect(stdout.split('\n').filter(Boolean)).toEqual(Array.from({ length: 50 }, (_, i) => `{"line":${i}}`));
  });
});
