import { parse } from 'cookie';
import type { IncomingMessage } from 'node:http';

/**
 * `req.cookies` from the Cookie header, parsed by the `cookie` package (the parser cookie-parser uses), set by
 * the front layer on every request before anything reads it; `{}` without the header. The service sets no
 * signed and no `j:` JSON cookies, so it reads none: such a value stays the string it is.
 */
export function readCookies(req: IncomingMessage & { cookies?: Record<string, string | undefined> }): void {
  const header = req.headers.cookie;
  req.cookies = header ? parse(header) : {};
}
