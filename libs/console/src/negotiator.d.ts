/** The part of negotiator 1.x the console's assets use (its README: `encoding(available, { preferred })`). */
declare module 'negotiator' {
  import type { IncomingMessage } from 'node:http';

  export default class Negotiator {
    constructor(request: Pick<IncomingMessage, 'headers'>);
    /** The client's most preferred of `available`; among equal q-values, the first in `preferred`. */
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
}
