import { randomFillSync } from 'node:crypto';
import { ArgumentMetadata, Param, PipeTransform, Query } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import { RequestRefusal } from '@app/problems';

/** The example GUID of the OpenAPI document's path and query parameters (a tool that calls them, Dredd). */
export const EXAMPLE_GUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

/** A GUID in its 8-4-4-4-12 hexadecimal form, any version, either case (as a JSON Schema `pattern`: no flags). */
export const GUID_SOURCE = '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$';
export const GUID_PATTERN = new RegExp(GUID_SOURCE);

/** Random bytes for timeOrderedGuid, drawn from the CSPRNG 256 GUIDs at a time (one call instead of 256). */
const RANDOM_POOL = Buffer.allocUnsafe(16 * 256);
let poolAt = RANDOM_POOL.length;
/** The largest instant a version 7 GUID holds: 48 bits of milliseconds (the year 10889). */
const MAX_UNIX_MS = 2 ** 48 - 1;

/**
 * A version 7 GUID (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits from the CSPRNG. For the ids
 * of rows written at a high rate into a unique index (archived invocations, cases): ids of one moment sort
 * together, so each insert lands at the index's right edge instead of on a random page of it, and a batch of
 * inserts rewrites a few pages instead of most of the index (docs/performance.md measures it). The 74 random
 * bits keep it as unguessable as a version 4 GUID (122) is for any purpose here; what it shows is when it
 * was made, which every row carrying one records anyway.
 */
export function timeOrderedGuid(now: number = Date.now()): string {
  const nowMs = Math.floor(now); // a clock may give fractions of a millisecond
  if (!(nowMs >= 0 && nowMs <= MAX_UNIX_MS))
    throw new RangeError('A version 7 GUID holds a Unix millisecond instant from 1970 to 10889.');
  if (poolAt === RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    poolAt = 0;
  }
  const b = RANDOM_POOL.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  b.writeUInt16BE(Math.floor(nowMs / 2 ** 32), 0);
  b.writeUInt32BE(nowMs >>> 0, 2);
  b[6] = (b[6] & 0x0f) | 0x70; // version 7
  b[8] = (b[8] & 0x3f) | 0x80; // variant 10
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The Unix milliseconds a version 7 GUID was made at (timeOrderedGuid); null for any other GUID. */
export function instantOfTimeOrderedGuid(guid: string): number | null {
  if (!GUID_PATTERN.test(guid) || guid[14] !== '7') return null;
  return parseInt(guid.slice(0, 8) + guid.slice(9, 13), 16);
}

/**
 * THE GUID pipe of path (and query) parameters: anything but a GUID is a 400 problem naming the parameter;
 * the GUID is answered in lower case, the form the service stores. Use it through GuidParam / GuidQuery.
 */
export class ParseGuidPipe implements PipeTransform<unknown, string | undefined> {
  constructor(private readonly optional = false) {}

  transform(value: unknown, metadata: ArgumentMetadata): string | undefined {
    if (value === undefined && this.optional) return undefined;
    const name = metadata.data ?? 'guid';
    if (typeof value !== 'string' || !GUID_PATTERN.test(value))
      throw RequestRefusal.field(name, `${name} must be a GUID.`);
    return value.toLowerCase();
  }
}

/** Applies a method decorator (the parameter's OpenAPI description) from a parameter decorator. */
export function documentParameter(decorator: MethodDecorator): ParameterDecorator {
  return (target, key) => {
    if (key === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    if (descriptor) decorator(target, key, descriptor);
  };
}

const GUID_SCHEMA = { type: 'string', format: 'uuid', pattern: GUID_SOURCE, example: EXAMPLE_GUID } as const;

/**
 * A GUID path parameter: `@GuidParam() guid: string`, `@GuidParam('ruleGuid') ruleGuid: string`. It documents
 * itself (format uuid, an example), so the OpenAPI document says what the pipe accepts.
 */
export const GuidParam = (name = 'guid'): ParameterDecorator => {
  const param = Param(name, new ParseGuidPipe());
  const doc = documentParameter(
    ApiParam({
      name,
      schema: GUID_SCHEMA,
      example: EXAMPLE_GUID,
      description: 'A GUID (any case; answered in lower case)',
    }),
  );
  return (target, key, index) => {
    param(target, key, index);
    doc(target, key, index);
  };
};

/** An optional GUID query parameter (documented like GuidParam). */
export const GuidQuery = (name: string): ParameterDecorator => {
  const query = Query(name, new ParseGuidPipe(true));
  const doc = documentParameter(
    ApiQuery({ name, required: false, schema: GUID_SCHEMA, description: 'A GUID (exact match)' }),
  );
  return (target, key, index) => {
    query(target, key, index);
    doc(target, key, index);
  };
};
