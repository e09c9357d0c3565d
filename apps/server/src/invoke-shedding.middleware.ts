import type { IncomingMessage, ServerResponse } from 'node:http';
import { COOKIE_SCHEME, markShed } from '@app/common';
import type { InvokeAdmission } from '@app/engine';

/** POST /api/Invoke/EntityAnalysisModel/{guid} as Express routes it (case-insensitive, an optional final slash). */
const INVOKE_PATH = /^\/api\/invoke\/entityanalysismodel\/[^/?]+\/?(?:\?|$)/i;
const JWT_COOKIE = `${COOKIE_SCHEME}=`;

/** The request carries a credential (any of the three carriers the precedence guard reads). */
function carriesCredential(req: IncomingMessage): boolean {
  const h = req.headers;
  return (
    h['x-api-key'] !== undefined ||
    h.authorization !== undefined ||
    (typeof h.cookie === 'string' && h.cookie.includes(JWT_COOKIE))
  );
}

/**
 * Overload refused at the front door (issue 36): while InvokeAdmission refuses new invocations, an Invoke
 * request that carries a credential is answered 503 with Retry-After at once, with a preformatted problem:
 * its body is never read or parsed (Node discards it), no route is walked, no exception is built, and it gets
 * no request line of its own (InvokeAdmission logs the count once a second). The credential is not checked
 * first: checking it is most of a request's cost, and a 503 says nothing about it; a request with none goes
 * on to its 401. Answers true when it answered.
 */
export function invokeShedding(
  admission: InvokeAdmission,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const refusal = admission.refusal();
    if (refusal === null || !INVOKE_PATH.test(req.url ?? '') || !carriesCredential(req)) return false;
    const answer = admission.shed(refusal);
    markShed(res);
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
    return true;
  };
}
