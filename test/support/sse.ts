import http from 'node:http';
import { waitFor } from './spawn-server';

export interface SseEvent {
  event: string;
  data: string;
}

/** A server-sent-events client over plain node:http, for tests. */
export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  /** Resolves when the server ends the stream (or the connection drops). */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Date.now() when it ended. */
  endedAt(): number | undefined;
  nextEvent(name: string, timeoutMs: number): Promise<SseEvent>;
  close(): void;
}

/** Opens `url` and resolves once the response head has arrived. */
export function openStream(url: string, headers: Record<string, string>): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      const events: SseEvent[] = [];
      let buffer = '';
      let endedAt: number | undefined;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          events.push({ event, data: data.join('\n') });
        }
      });
      const ended = new Promise<void>((done) => {
        const finish = () => {
          endedAt ??= Date.now();
          done();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      });
      let seen = 0;
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        ended,
        isEnded: () => endedAt !== undefined,
        endedAt: () => endedAt,
        nextEvent: async (name, timeoutMs) => {
          let found: SseEvent | undefined;
          await waitFor(
            () => {
              const i = events.findIndex((e, index) => index >= seen && e.event === name);
              if (i < 0) return false;
              seen = i + 1;
              found = events[i];
              return true;
            },
            timeoutMs,
            `stream event ${name}`,
          );
          return found as SseEvent;
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}
