import { ArgumentMetadata, Param, PipeTransform, Query } from '@nestjs/common';
import { RequestRefusal } from './problem';

/** A GUID in its 8-4-4-4-12 hexadecimal form, any version, either case. */
export const GUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** A GUID path parameter: `@GuidParam() guid: string`, `@GuidParam('ruleGuid') ruleGuid: string`. */
export const GuidParam = (name = 'guid') => Param(name, new ParseGuidPipe());

/** An optional GUID query parameter. */
export const GuidQuery = (name: string) => Query(name, new ParseGuidPipe(true));
