import { parse } from 'cookie';
import type { IncomingMessage } from 'node:http';

/**
 * `req.cookies` on an Express application's requests, parsed from the Cookie header when it is first read
 * and kept on the request, as Express's own `req.ip` or `req.secure` are getters on the same prototype. Most
 * requests never read it (an API key or a bearer token decides before the cookie is looked at), so they no
 * longer pay for it, as they did with cookie-parser. Parsed by `cookie`, the parser cookie-parser uses, with
 * the same result for the service's cookies; there are no signed cookies and no `j:` JSON cookies (the service
 * sets neither; such a value stays the string it is, never an object). An assignment replaces the value.
 */
export function parseCookiesOnRead(requestPrototype: object): void {
  const keep = (req: object, value: unknown) =>
    Object.defineProperty(req, 'cookies', { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(requestPrototype, 'cookies', {
    configurable: true,
    enumerable: true,
    get(this: IncomingMessage): Record<string, string> {
      const header = this.headers.cookie;
      const cookies = header ? parse(header) : {};
      keep(this, cookies);
      return cookies;
    },
    set(this: IncomingMessage, value: unknown) {
      keep(this, value);
    },
  });
}
