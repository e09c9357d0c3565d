import { ArgumentMetadata, Param, PipeTransform, Query } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import { RequestRefusal } from './problem';

/** The example GUID of the OpenAPI document's path and query parameters (a tool that calls them, Dredd). */
export const EXAMPLE_GUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

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

/** Applies a method decorator (the parameter's OpenAPI description) from a parameter decorator. */
function documentParameter(decorator: MethodDecorator): ParameterDecorator {
  return (target, key) => {
    if (key === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    if (descriptor) decorator(target, key, descriptor);
  };
}

const GUID_SCHEMA = { type: 'string', format: 'uuid', example: EXAMPLE_GUID } as const;

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
