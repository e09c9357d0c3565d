import { createParamDecorator, ExecutionContext, HttpStatus } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ProblemException } from '@app/problems';
import { ApiProblemResponses } from '@app/problems';
import { documentParameter } from '@app/input-rules';

/**
 * What an If-Match header asks of the record a PUT or DELETE writes (RFC 9110 §13.1.1): nothing (absent),
 * any current version (`*`), or one of the versions its entity-tags name. An entity-tag that is not one of
 * this service's (`"<version>"`), a weak one (If-Match compares strongly) or a malformed value names no
 * version, so it never matches: `If-Match: "bogus"` is a 412, never a write.
 */
export type IfMatch = undefined | '*' | readonly number[];

const STRONG_VERSION_TAG = /^"([1-9][0-9]{0,14})"$/;

export function parseIfMatch(header: string | string[] | undefined): IfMatch {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return '*';
  const versions: number[] = [];
  for (const tag of text.split(',')) {
    const m = STRONG_VERSION_TAG.exec(tag.trim());
    if (m) versions.push(Number(m[1]));
  }
  return versions;
}

/** The strong ETag of a record's version: `"3"`. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

export function ifMatchAllows(ifMatch: IfMatch, version: number): boolean {
  return ifMatch === undefined || ifMatch === '*' || ifMatch.includes(version);
}

export const PRECONDITION_FAILED_TYPE = 'urn:problem-type:precondition-failed';

export function preconditionFailed(): ProblemException {
  return new ProblemException(
    HttpStatus.PRECONDITION_FAILED,
    'Precondition Failed',
    'The record was changed by someone else since you read it (If-Match names another version). Read it again, then repeat the change.',
    PRECONDITION_FAILED_TYPE,
  );
}

/**
 * A PUT or DELETE of a versioned record: `read` it (its 404 when it is not there or not visible to the
 * caller), hold the request's If-Match against its version (412), then `write` it in ONE statement. With
 * If-Match that statement applies only while the row still has the version read (`write` is given it: `… WHERE
 * "Version" = :v`); without, it applies to the row as it is (`write` is given undefined), writing only the
 * columns the request changes. `write` answers what the route returns, or undefined when it changed nothing:
 * then `read` again says why (404 when the record went, else a 412: it moved on since it was read).
 */
export async function versionedWrite<R extends { Version: number }, T>(
  ifMatch: IfMatch,
  read: () => Promise<R>,
  write: (row: R, version: number | undefined) => Promise<T | undefined>,
): Promise<T> {
  const row = await read();
  if (!ifMatchAllows(ifMatch, row.Version)) throw preconditionFailed();
  const written = await write(row, ifMatch === undefined ? undefined : row.Version);
  if (written !== undefined) return written;
  await read();
  throw preconditionFailed();
}

const IF_MATCH_DESCRIPTION =
  'Write only if the record is still at this version: its ETag (`"3"`) as read, or `*`. Another version: 412, nothing written. Without it the write applies to the record as it is.';

/**
 * The request's If-Match, parsed (`@IfMatchHeader() ifMatch: IfMatch`). It documents itself: the header
 * parameter and the 412 answer of the operation.
 */
export const IfMatchHeader = (): ParameterDecorator => {
  const param = createParamDecorator((_data: unknown, context: ExecutionContext) =>
    parseIfMatch(
      context.switchToHttp().getRequest<{ headers: Record<string, string | string[]> }>().headers['if-match'],
    ),
  )();
  const header = documentParameter(
    ApiHeader({
      name: 'If-Match',
      required: false,
      schema: { type: 'string' },
      description: IF_MATCH_DESCRIPTION,
    }),
  );
  const answer = documentParameter(
    ApiProblemResponses({
      412: `If-Match names another version: the record was changed by someone else (${PRECONDITION_FAILED_TYPE}); nothing was written`,
    }),
  );
  return (target, key, index) => {
    param(target, key, index);
    header(target, key, index);
    answer(target, key, index);
  };
};
