import type { DestinationStream } from 'pino';

/**
 * Log lines for a person at a terminal: when stdout is a TTY (`npm start` in a shell, a container run with
 * `-it`), pino-pretty's readable lines, written synchronously in this thread so the order against the start
 * banner is kept. Anywhere else (containers, systemd, CI, a pipe) undefined: the JSON lines stay. When
 * pino-pretty cannot be loaded (an image built without it), also undefined, never a crash.
 */
export function terminalLogStream(
  stdout: NodeJS.WriteStream & { fd: number } = process.stdout,
): DestinationStream | undefined {
  if (!stdout.isTTY) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as typeof import('pino-pretty');
    return pretty({
      destination: stdout.fd,
      sync: true,
      colorize: stdout.hasColors?.() ?? false,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,instance,context',
      messageFormat: '{if context}{context}: {end}{msg}',
      singleLine: true,
    });
  } catch {
    return undefined;
  }
}
