import fc from 'fast-check';
import pino from 'pino';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { REQUEST_LINE_BATCH, requestLineText } from './request-logging.middleware';

/** What pino itself writes for a request line with these bindings, at a fixed time. */
function pinoLine(
  base: Record<string, unknown>,
  level: 'info' | 'warn' | 'error',
  line: Parameters<typeof requestLineText>[3],
  message: string,
  time = 1764000000123,
): string {
  let written = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  const logger = pino({ level: 'info', base, timestamp: () => `,"time":${time}` }, sink);
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

  it('writes generated lines byte for byte as pino does (any id, method and URL: quotes, controls, surrogates, beyond ASCII)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.string({
        unit: fc.constantFrom(
          '"',
          '\\',
          '\u0000',
          '\u001f',
          '\u007f',
          '\u2028',
          '\ud800',
          '\udc00',
          'a',
          'é',
        ),
      }),
      fc.uuid(),
    );
    const levels = [
      ['info', 30],
      ['warn', 40],
      ['error', 50],
    ] as const;
    fc.assert(
      fc.property(
        fc.record({
          id: text,
          method: text,
          url: text,
          statusCode: fc.integer({ min: 100, max: 599 }),
          responseTime: fc.nat(),
        }),
        // the service's own messages (pino quotes msg by its own rule, not JSON.stringify's, for a lone surrogate)
        fc.constantFrom('request completed', 'request failed', 'request aborted'),
        fc.constantFrom(...levels),
        // the same millisecond as the line before, or another
        fc.constantFrom(1764000000123, 1764000000124, 1_800_000_000_000),
        (line, message, [level, number], time) => {
          expect(requestLineText(bindings, number, time, line, message)).toBe(
            pinoLine(base, level, line, message, time),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('lineBatcher', () => {
  const root = join(__dirname, '..', '..', '..');
  /** A child that hands `count` lines to a batcher (`batch`) over the service's own destination, then `ending`. */
  const child = (count: number, batch: number, ending: string): [string, string[]] => [
    process.execPath,
    [
      '-r',
      join(root, 'scripts', 'ts-register.js'),
      '-e',
      `const { lineBatcher, stdoutDestination } = require('./apps/server/src/request-logging.middleware');
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
