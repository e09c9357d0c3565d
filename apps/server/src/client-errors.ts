import { maxHeaderSize as NODE_MAX_HEADER_SIZE, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE, ProblemType, type ProblemDetails } from '@app/problems';

/** A request node:http's parser refused, as its `clientError` event gives it. */
interface ClientError extends Error {
  code?: string;
  /** the bytes the parser was given when it failed (the request's first bytes when they came in one read) */
  rawPacket?: Buffer;
}

const DETAILS: Record<number, string> = {
  400: 'The request is not valid HTTP/1.1 (an unknown method, a malformed request line or header, or a bad chunk).',
  408: 'The request did not arrive whole within RequestBodyTimeoutMilliseconds.',
  413: 'The chunk extensions of the body are too large.',
  414: 'The request target (path and query) is longer than the service reads (16 KiB with its headers).',
  431: 'The request headers are larger than the service reads (16 KiB with the request line).',
};

/** A request line whose target never ended within the bytes read, or ended past half the limit. */
function longTarget(rawPacket: Buffer | undefined, limit: number): boolean {
  if (!rawPacket) return false;
  const head = rawPacket.subarray(0, limit + 16).toString('latin1');
  const line = /^[A-Z]{1,20} (\S*)( |\r?\n|$)/.exec(head);
  if (!line) return false;
  return line[2] === '' || line[1].length > limit / 2;
}

/**
 * The status of a request node:http refused before the application saw it, as node:http would answer it
 * (431, 413, 408, else 400), except a header overflow caused by the request target itself: 414 (RFC 9110
 * §15.5.15), when its request line is in the bytes the parser failed on.
 */
export function clientErrorStatus(err: ClientError, limit = NODE_MAX_HEADER_SIZE): number {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return longTarget(err.rawPacket, limit) ? 414 : 431;
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 413;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408;
    default:
      return 400;
  }
}

/** The whole HTTP/1.1 answer, written on the socket: an RFC 9457 problem, and the connection closed. */
export function clientErrorAnswer(status: number): string {
  const problem: ProblemDetails = {
    type: ProblemType.blank,
    title: STATUS_CODES[status] ?? 'Bad Request',
    status,
    detail: DETAILS[status] ?? DETAILS[400],
  };
  const body = JSON.stringify(problem);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Requests node:http refuses itself (an oversize head, a parse error, an unknown method, a request timeout)
 * are answered with a problem body, where node:http would write a bare status line: its `clientError` event is
 * where an application may answer them (node:http docs). As node:http does, only on a socket that has sent
 * nothing yet, then the socket is destroyed with the error (a body reader tells a timeout by it:
 * incompleteBody).
 */
export function answerClientErrors(server: Server, limit = NODE_MAX_HEADER_SIZE): void {
  server.on('clientError', (err: ClientError, socket: Duplex & { bytesWritten?: number }) => {
    if (err.code !== 'ECONNRESET' && socket.writable && !socket.bytesWritten)
      socket.write(clientErrorAnswer(clientErrorStatus(err, limit)));
    socket.destroy(err);
  });
}
