import type { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { send } from './cluster';

/** What a key's back-to-back asks saw once its change had answered. */
export interface AfterTheAnswer<A> {
  answer: A;
  /** Asks sent after the change's answer that were accepted (200): each one a key that outlived its change. */
  acceptedAfter: number;
  /** Asks sent after the answer that were refused with `refused`. */
  refusedAfter: number;
}

/**
 * Asks `path` with `key` back to back while `change()` runs, and counts the asks SENT after its answer: accepted,
 * or refused with `refused`. Stops at the first refusal after the answer (or 1 000 acceptances).
 */
export async function probeKeyWhile<A>(
  agent: Agent,
  path: string,
  key: string,
  refused: number,
  change: () => Promise<A>,
): Promise<AfterTheAnswer<A>> {
  let answeredAt = Infinity;
  let stop = false;
  let acceptedAfter = 0;
  let refusedAfter = 0;
  const prober = (async () => {
    while (!stop) {
      const sentAt = performance.now();
      const { status } = await send(agent, path, 'GET', { 'x-api-key': key });
      if (sentAt > answeredAt) {
        if (status === 200) acceptedAfter++;
        else if (status === refused) refusedAfter++;
      }
    }
  })();
  const answer = await change();
  answeredAt = performance.now();
  while (refusedAfter === 0 && acceptedAfter < 1000) await new Promise((r) => setImmediate(r));
  stop = true;
  await prober;
  return { answer, acceptedAfter, refusedAfter };
}

/** Whether `answer` settles within `ms`; it keeps running either way. */
export async function settlesWithin(answer: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([answer.then(() => true as const), late]);
  clearTimeout(timer);
  return settled;
}
