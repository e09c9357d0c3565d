/*
 * bench:cluster's record of the invocations answered 200 (bench/cluster-setup.ts's load runs), apart so that
 * test/bench-cluster-answers.spec.ts can run it against autocannon and a real server.
 */
import { IncomingHttpHeaders } from 'node:http';

/**
 * What the load runs share: entry guid of every invocation answered 200 → the node that answered it, and the
 * answers autocannon handed to another request of the mix than the one they answer.
 */
export interface MixState {
  accepted: Map<string, string>;
  sequence: number;
  mispaired: number;
}

/** The entry guid of an invocation's answer, or undefined for any other answer of the mix. */
function entryGuidOf(body: string): string | undefined {
  try {
    const guid = (JSON.parse(body) as { entityAnalysisModelInstanceEntryGuid?: unknown } | null)
      ?.entityAnalysisModelInstanceEntryGuid;
    return typeof guid === 'string' ? guid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every request of the mix records its answers this way. autocannon 8 pairs an answer with the request object
 * at the head of its connection's queue, and a connection that ends is reopened without clearing that queue:
 * the request written to the closed connection stays at its head, so from then on each answer on that client
 * goes to the request sent before it (a Session read's answer to an invocation, an invocation's to a grid
 * read). So an invocation is known by its own answer: a 200 whose body carries an entry guid, with the
 * X-Served-By of that same answer, whichever request autocannon hands it to; the mispairings are counted.
 */
export function recordAnswer(state: MixState, invocation: boolean) {
  return (status: number, body: string, _c: object, headers?: IncomingHttpHeaders) => {
    if (status !== 200) return;
    const guid = entryGuidOf(body);
    if ((guid !== undefined) !== invocation) state.mispaired++;
    if (guid === undefined) return;
    const served = headers?.['x-served-by'];
    state.accepted.set(guid, typeof served === 'string' ? served : '?');
  };
}
