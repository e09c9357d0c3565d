import { Logger } from '@nestjs/common';

const warned = new Set<string>();

/**
 * One warning, once per process, that a fast path (README.md) cannot engage and the library's own path runs
 * instead: the service still answers the same, only slower. Through Nest's Logger, so the service's logger
 * (pino) writes it once the application has one.
 */
export function fastPathOff(name: string, why: string): void {
  if (warned.has(name)) return;
  warned.add(name);
  new Logger('FastPaths').warn(`fast path off: ${name}: ${why}`);
}
