/** What mediaTypeIs reads of a request: its Content-Type and Express's `is` (type-is). */
export interface MediaTypedRequest {
  readonly headers: {
    readonly 'content-type'?: string;
    readonly 'content-length'?: string;
    readonly 'transfer-encoding'?: string;
  };
  is(type: string): string | false | null;
}

/** Distinct Content-Type values whose verdict each check keeps (all forgotten when one more comes). */
const MEDIA_TYPE_VERDICTS = 64;

/**
 * type-is's own test of a body (body-parser's too): a Transfer-Encoding, or a Content-Length that reads as a
 * number.
 */
export function hasBody(req: Pick<MediaTypedRequest, 'headers'>): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']))
  );
}

/**
 * `Boolean(req.is(type))`: false for a request without a body; for one with a body, remembered per
 * Content-Type value (the verdict depends on that header alone), since type-is parsing and matching it cost a
 * few µs of every request with a body (the body parsers' `type` check, RequestInputRules). At most
 * MEDIA_TYPE_VERDICTS values are kept, so a client sending endless distinct ones costs memory for none of them.
 */
export function mediaTypeIs(type: string): (req: MediaTypedRequest) => boolean {
  const verdicts = new Map<string | undefined, boolean>();
  return (req) => {
    if (!hasBody(req)) return false;
    const value = req.headers['content-type'];
    const known = verdicts.get(value);
    if (known !== undefined) return known;
    const verdict = Boolean(req.is(type));
    if (verdicts.size >= MEDIA_TYPE_VERDICTS) verdicts.clear();
    verdicts.set(value, verdict);
    return verdict;
  };
}

/** A JSON body (application/json, any parameters), as the JSON body parser decides. */
export const isJson = mediaTypeIs('application/json');
/** A form body (application/x-www-form-urlencoded), as the form body parser decides. */
export const isForm = mediaTypeIs('application/x-www-form-urlencoded');

/**
 * A request that carries content of another media type than JSON: a body (a Transfer-Encoding, or a
 * Content-Length above 0) whose Content-Type is not application/json. A request without content (no body, or
 * Content-Length: 0) is never refused for its media type, whatever its Content-Type says.
 */
export function carriesOtherThanJson(req: MediaTypedRequest): boolean {
  const length = req.headers['content-length'];
  const content =
    req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
  return content && !isJson(req);
}
